package io.sipline.container.dispatch;

import io.sipline.sip.transaction.TransactionAttachment;

/**
 * The dispatcher's marks on a transaction whose attachment is no application object any more, or never was one.
 *
 * <p>Constants: shared by every shard.
 */
enum TransactionMark implements TransactionAttachment
{
    /**
     * An INVITE server transaction whose final response was sent and whose request was released; its To tag is the
     * transaction's {@code answeredToTag} for a late CANCEL (RFC 3261 §9.2).
     */
    ANSWERED_INVITE,
    /** The client transaction of a BYE the container sent itself (a stray 2xx ended): its response is nobody's. */
    CONTAINER_BYE
}
