package io.sipline.container.api;

import java.util.concurrent.ThreadLocalRandom;

import io.sipline.sip.message.HeaderName;

/**
 * The reliable provisional responses (RFC 3262, JSR 289 §5.7.1) of one {@link SipSessionImpl}: as UAS, the RSeq
 * numbers it gives and the one reliable provisional response not yet acknowledged by a PRACK (§3 allows one at a
 * time); as UAC, the last RSeq accepted from the peer's early dialog and the reliable provisional response the next
 * PRACK acknowledges (§4).
 * <p>
 * Made on first use by {@link SipSessionImpl#reliableProvisionals()}; sessions that never see 100rel have none.
 * <p>
 * Threading: the session's shard, or the application's thread while it holds the application session (JSR 289
 * §6.4.2.1); never both at once.
 */
public final class ReliableProvisionals
{
    /** The option tag of RFC 3262 (§10: the 100rel option tag). */
    public static final String OPTION_TAG = "100rel";

    /** The RSeq the next reliable provisional response of this UAS gets; 0 before the first. */
    private long nextRseq;
    /** The UAS's reliable provisional response waiting for its PRACK, or null. */
    private SipServletResponseImpl pending;
    /** The retransmission of {@link #pending}, or null. */
    private ResponseRetransmission retransmission;

    /** The To tag of the early dialog whose RSeq numbers {@link #lastRseq} follows (UAC). */
    private String remoteTag;
    /** The last RSeq accepted from the peer (UAC), or -1. */
    private long lastRseq = -1;
    /** The last reliable provisional response delivered to the application and not yet PRACKed (UAC), or null. */
    private SipServletResponseImpl unacknowledged;

    // ================================================================================================================
    // UAS (RFC 3262 §3)
    // ================================================================================================================

    /**
     * The RSeq of the next reliable provisional response: the first is random in 1..2^31-1 (§3, "MUST be between 1
     * and 2**31 - 1"), each next one is one higher (§3, "MUST be one higher").
     */
    public long takeRseq()
    {
        if (0 == nextRseq)
        {
            nextRseq = ThreadLocalRandom.current().nextLong(1, 1L << 31);
        }
        return nextRseq++;
    }

    /** The reliable provisional response waiting for its PRACK, or null. */
    public SipServletResponseImpl pending()
    {
        return pending;
    }

    public void pending(final SipServletResponseImpl response)
    {
        pending = response;
    }

    /** The retransmission of the pending reliable provisional response, or null. */
    public ResponseRetransmission retransmission()
    {
        return retransmission;
    }

    public void retransmission(final ResponseRetransmission value)
    {
        retransmission = value;
    }

    /**
     * Whether a PRACK's RAck value ({@code response-num CSeq-num Method}, §7.2) names the pending reliable
     * provisional response: same RSeq, same CSeq number and method as its request (§3).
     */
    public boolean acknowledges(final String rack)
    {
        if (null == pending || null == rack)
        {
            return false;
        }
        final String[] parts = rack.strip().split("\\s+");
        if (3 != parts.length)
        {
            return false;
        }
        try
        {
            return Long.parseLong(parts[0]) == pending.rseq()
                && Long.parseLong(parts[1]) == pending.requestImpl().cseqNumber()
                && parts[2].equals(pending.requestImpl().getMethod());
        }
        catch (final NumberFormatException e)
        {
            return false;
        }
    }

    // ================================================================================================================
    // UAC (RFC 3262 §4)
    // ================================================================================================================

    /** What a UAC does with a received reliable provisional response (§4). */
    public enum Verdict
    {
        /** The first, or one higher than the last: delivered to the application, which PRACKs it. */
        DELIVER,
        /** A retransmission (an RSeq already accepted): absorbed. */
        RETRANSMISSION,
        /** Not one higher than the last: "MUST NOT be processed further" (§4); discarded. */
        OUT_OF_ORDER
    }

    /**
     * Checks a received reliable provisional response's RSeq against the early dialog's sequence (§4) and, when it
     * is delivered, remembers it as the one the next PRACK acknowledges.
     */
    public Verdict received(final SipServletResponseImpl response, final String toTag)
    {
        final long rseq = response.rseq();
        if (null == remoteTag || !remoteTag.equals(toTag) || lastRseq < 0)
        {
            remoteTag = toTag; // the first reliable provisional response of this early dialog sets the sequence
        }
        else if (rseq <= lastRseq)
        {
            return Verdict.RETRANSMISSION;
        }
        else if (rseq != lastRseq + 1)
        {
            return Verdict.OUT_OF_ORDER;
        }
        lastRseq = rseq;
        unacknowledged = response;
        return Verdict.DELIVER;
    }

    /** The reliable provisional response the next PRACK of this UAC acknowledges, or null. */
    public SipServletResponseImpl unacknowledged()
    {
        return unacknowledged;
    }

    /** A PRACK was made for {@code response}: it is no longer the one a PRACK without RAck would acknowledge. */
    public void prackCreated(final SipServletResponseImpl response)
    {
        if (unacknowledged == response)
        {
            unacknowledged = null;
        }
    }

    // ================================================================================================================
    // Header tests shared by both sides
    // ================================================================================================================

    /** Whether one of the headers named {@code name} lists the 100rel option tag (comma-separated, any case). */
    public static boolean listsOptionTag(final MessageHeaders headers, final HeaderName name)
    {
        return headers.containsToken(name, OPTION_TAG);
    }

    /** The RAck value of a PRACK for {@code response} (§7.2): its RSeq, its request's CSeq number and method. */
    public static String rackOf(final SipServletResponseImpl response)
    {
        return response.rseq() + " " + response.requestImpl().cseqNumber() + " " + response.requestImpl().getMethod();
    }

    /** An RSeq header value as a number (1..2^32-1, RFC 3262 §7.1), or -1 when it is not one. */
    public static long parseRseq(final String value)
    {
        if (null == value)
        {
            return -1;
        }
        final String v = value.strip();
        if (v.isEmpty() || v.length() > 10)
        {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < v.length(); i++)
        {
            final char c = v.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n >= 1 && n <= 0xFFFFFFFFL ? n : -1;
    }
}
