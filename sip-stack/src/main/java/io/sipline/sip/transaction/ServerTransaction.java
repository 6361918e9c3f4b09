package io.sipline.sip.transaction;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;

/**
 * A server transaction (RFC 3261 §17.2): created by an incoming request, it passes the request to its
 * {@link TransactionUser} once, sends the user's responses, re-sends the last one when the request is retransmitted,
 * and (INVITE) retransmits a non-2xx final response until the ACK comes.
 *
 * <p>Matching (§17.2.3): with a magic-cookie branch, by branch, sent-by of the top Via and method (ACK matches its
 * INVITE); without it, by the RFC 2543 fields: Request-URI, To tag, From tag, Call-ID, CSeq and top Via (an ACK's To
 * tag is compared with the To tag of the response sent).
 *
 * <p>Not thread-safe; owned by one shard.
 */
public abstract class ServerTransaction extends Transaction
{
    boolean maxForwardsExhausted;
    ServerTransaction cancelledInvite;
    long cancelledInviteId;
    /** The To tag of the final response the user sent, kept for a late CANCEL's 200 ({@link #answeredToTag()}). */
    CharSequence answeredToTag;

    ServerTransaction(final TransactionLayer layer, final int index, final int kind)
    {
        super(layer, index, kind);
    }

    @Override
    public final boolean isClient()
    {
        return false;
    }

    /**
     * True when the request arrived with {@code Max-Forwards: 0}. The layer does not answer it: only the user knows
     * whether the request is for this element. A proxy or a B2BUA forwarding it answers {@code 483 Too Many Hops}
     * (RFC 3261 §16.3 item 3); a UAS may process a request addressed to it (an OPTIONS, §11).
     */
    public final boolean maxForwardsExhausted()
    {
        return maxForwardsExhausted;
    }

    /**
     * For a CANCEL: the INVITE server transaction it cancels (RFC 3261 §9.2), or null when there is none (the user
     * answers 481) or it has ended since.
     */
    public final ServerTransaction cancelledInvite()
    {
        final ServerTransaction invite = cancelledInvite;
        return null != invite && invite.id == cancelledInviteId ? invite : null;
    }

    /** Starts the machine on the request that created it (borrowed), before the user sees it. */
    abstract void start(SipMessage request);

    /** A retransmission of the creating request (borrowed) arrived. */
    abstract void onRetransmission(SipMessage request);

    /**
     * The user sends a response.
     *
     * @param response ownership taken (also when refused: then released here).
     * @return false when the state allows no such response (it was released).
     */
    abstract boolean sendResponse(ByteBuf response, int status);

    @Override
    void reset()
    {
        super.reset();
        maxForwardsExhausted = false;
        cancelledInvite = null;
        cancelledInviteId = 0;
        answeredToTag = null;
    }

    /**
     * The To tag of the final response sent on this INVITE transaction, as its user recorded it when it let go of the
     * request; null when none was recorded or that response had no tag. A CANCEL that comes after the final response
     * gets a 200 with this tag (RFC 3261 §9.2: the same To tag as the response to the original request). Immutable
     * text (a String, or an id kept as its numbers), written as it is.
     */
    public final CharSequence answeredToTag()
    {
        return answeredToTag;
    }

    public final void answeredToTag(final CharSequence tag)
    {
        answeredToTag = tag;
    }

    /**
     * §17.2.3 matching of a request against this transaction.
     *
     * @param methodClass the method to compare with the creating request's: INVITE for an ACK and for the §9.2
     *                    CANCEL lookup, else the request's own.
     * @param hostStart   sent-by host of the request's top Via (already located by the layer).
     */
    final boolean matchesRequest(
        final SipMessage request, final SipMethod methodClass, final boolean cookie, final int hostStart,
        final int hostEnd, final int port)
    {
        if (methodClass != method || cookie == legacy)
        {
            return false;
        }
        final byte[] b = request.buffer();
        if (method == SipMethod.EXTENSION && !segEquals(SEG_METHOD, b, request.methodStart(), request.methodEnd()))
        {
            return false;
        }
        if (!legacy)
        {
            return port == sentByPort
                && segEqualsIgnoreCase(SEG_BRANCH, b, request.topViaBranchStart(), request.topViaBranchEnd())
                && segEqualsIgnoreCase(SEG_HOST, b, hostStart, hostEnd);
        }
        final int via = request.topVia();
        final boolean toTagMatches = request.method() == SipMethod.ACK && method == SipMethod.INVITE ?
            (segEmpty(SEG_RESPONSE_TO_TAG) ? true :
                segEquals(SEG_RESPONSE_TO_TAG, b, request.toTagStart(), request.toTagEnd())) :
            segEquals(SEG_TO_TAG, b, request.toTagStart(), request.toTagEnd());
        return request.cseqNumber() == cseq
            && toTagMatches
            && segEquals(SEG_CALL_ID, b, request.callIdStart(), request.callIdEnd())
            && segEquals(SEG_FROM_TAG, b, request.fromTagStart(), request.fromTagEnd())
            && segEquals(SEG_REQUEST_URI, b, request.requestUriStart(), request.requestUriEnd())
            && segEquals(SEG_VIA, b, request.headerValueStart(via), request.headerValueEnd(via));
    }
}
