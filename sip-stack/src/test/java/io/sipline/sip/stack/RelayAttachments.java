package io.sipline.sip.stack;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.TransactionAttachment;

/**
 * Transaction attachments of the stack tests whose user relays a request upstream and answers it once the upstream
 * answered: the server transaction holds its answer, the relayed request's client transaction names that server
 * transaction.
 */
final class RelayAttachments
{
    private RelayAttachments()
    {
    }

    /** A server transaction's answer, built at once and held (one reference) until the relayed request is answered. */
    record HeldAnswer(ByteBuf answer) implements TransactionAttachment
    {
    }

    /** A relayed request's client transaction: the server transaction it answers. */
    record RelayedFor(ServerTransaction server) implements TransactionAttachment
    {
    }
}
