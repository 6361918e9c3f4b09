package io.sipline.sip.transaction;

import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;

/**
 * The keys the {@link TransactionLayer} matches transactions by (RFC 3261 §17.1.3, §17.2.3): FNV-1a hashes of the top
 * Via branch and the method, or for RFC 2543 requests (no magic cookie) of the Call-ID, CSeq number and From tag; and
 * the key segments a new server transaction keeps for comparing later requests with.
 *
 * <p>Stateless; thread-safe. Allocates nothing.
 */
final class TransactionKeys
{
    private TransactionKeys()
    {
    }

    private static final long FNV_OFFSET = Ascii.FNV64_OFFSET;

    private static final long FNV_PRIME = Ascii.FNV64_PRIME;

    private static final long LEGACY_SALT = 0x2543_2543_2543_2543L;

    static void fillServerKey(
        final ServerTransaction tx, final SipMessage m, final int hostStart, final int hostEnd, final int port)
    {
        final byte[] b = m.buffer();
        if (tx.method == SipMethod.EXTENSION)
        {
            tx.segSet(Transaction.SEG_METHOD, b, m.methodStart(), m.methodEnd());
        }
        if (!tx.legacy)
        {
            tx.segSet(Transaction.SEG_BRANCH, b, m.topViaBranchStart(), m.topViaBranchEnd());
            tx.segSet(Transaction.SEG_HOST, b, hostStart, hostEnd);
            tx.sentByPort = port;
            return;
        }
        // RFC 2543 fallback (§17.2.3): Request-URI, To tag, From tag, Call-ID, CSeq, top Via.
        final int top = m.topVia();
        tx.cseq = m.cseqNumber();
        tx.segSet(Transaction.SEG_REQUEST_URI, b, m.requestUriStart(), m.requestUriEnd());
        tx.segSet(Transaction.SEG_TO_TAG, b, m.toTagStart(), m.toTagEnd());
        tx.segSet(Transaction.SEG_FROM_TAG, b, m.fromTagStart(), m.fromTagEnd());
        tx.segSet(Transaction.SEG_CALL_ID, b, m.callIdStart(), m.callIdEnd());
        tx.segSet(Transaction.SEG_VIA, b, m.headerValueStart(top), m.headerValueEnd(top));
    }

    static long hashBranch(final SipMessage request, final SipMethod methodClass)
    {
        return hashBranch(request.buffer(), request.topViaBranchStart(), request.topViaBranchEnd(), methodClass,
            request.buffer(), request.methodStart(), request.methodEnd());
    }

    /** FNV-1a over the lower-cased branch, then the method (its bytes when it is an extension). */
    static long hashBranch(
        final byte[] buf, final int start, final int end, final SipMethod method, final byte[] methodBuf,
        final int methodStart, final int methodEnd)
    {
        long h = Ascii.fnv64IgnoreCase(FNV_OFFSET, buf, start, end);
        h ^= null == method ? 0xFF : method.ordinal() + 1;
        h *= FNV_PRIME;
        if (method == SipMethod.EXTENSION)
        {
            h = Ascii.fnv64(h, methodBuf, methodStart, methodEnd);
        }
        return h;
    }

    /** RFC 2543 requests: Call-ID, CSeq number and From tag (the method and the rest are compared on a hit). */
    static long hashLegacy(final SipMessage m)
    {
        final byte[] b = m.buffer();
        long h = Ascii.fnv64(FNV_OFFSET ^ LEGACY_SALT, b, m.callIdStart(), m.callIdEnd());
        h ^= m.cseqNumber();
        h *= FNV_PRIME;
        return Ascii.fnv64(h, b, m.fromTagStart(), m.fromTagEnd());
    }
}
