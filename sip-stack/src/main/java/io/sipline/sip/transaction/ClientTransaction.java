package io.sipline.sip.transaction;

import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;

/**
 * A client transaction (RFC 3261 §17.1): sends a request, retransmits it over unreliable transports, and passes the
 * responses that matter to its {@link TransactionUser}. Created by {@link TransactionLayer#sendRequest}.
 *
 * <p>Matching (§17.1.3): a response belongs to this transaction when its top Via branch equals the branch of the
 * request and its CSeq method equals the request's method (so a CANCEL and its INVITE, which share a branch, are two
 * transactions).
 *
 * <p>Not thread-safe; owned by one shard.
 */
public abstract class ClientTransaction extends Transaction
{
    ClientTransaction(final TransactionLayer layer, final int index, final int kind)
    {
        super(layer, index, kind);
    }

    @Override
    public final boolean isClient()
    {
        return true;
    }

    /** Starts the machine: sends the request held in {@code outbound} and arms the timers. */
    abstract void start();

    /** A response matched this transaction; {@code response} is borrowed. */
    abstract void onResponse(SipMessage response);

    /**
     * §17.1.3, on spans of {@code b}: whether a message with this method (its bytes in
     * {@code [methodStart, methodEnd)}, compared for an extension) and top Via branch belongs to this transaction: a
     * response by its CSeq method, a request to send by its own.
     */
    final boolean matches(final SipMethod other, final byte[] b, final int methodStart, final int methodEnd,
        final int branchStart, final int branchEnd)
    {
        if (other != method)
        {
            return false;
        }
        if (method == SipMethod.EXTENSION && !segEquals(SEG_METHOD, b, methodStart, methodEnd))
        {
            return false;
        }
        return Ascii.equalsIgnoreCase(key, seg[2 * SEG_BRANCH], seg[2 * SEG_BRANCH + 1], b, branchStart, branchEnd);
    }
}
