package io.sipline.media.srtp;

/**
 * Cryptographic state of one SSRC within an {@link SrtpContext} (RFC 3711 §3.2.3): the SRTP replay list, whose
 * highest index also gives s_l and the ROC (§3.3.1), the SRTCP replay list (receiver) or next SRTCP index (sender),
 * and, with a non-zero key derivation rate, the stream's own session keys.
 *
 * <p>Created by the context (at setup, on the first packet of an outbound SSRC, or after the first authenticated
 * packet of an inbound one) and found through a {@link SrtpStreamLookup}. Its fields are the context's business; the
 * public accessors are for the lookup and for diagnostics.
 *
 * <p>Not thread-safe; owned by the media thread that owns its context.
 */
public final class SrtpStream
{
    /** The largest SRTP index, 2^48 - 1 (RFC 3711 §3.2.1). */
    static final long MAX_SRTP_INDEX = (1L << 48) - 1;
    /** The largest SRTCP index, 2^31 - 1 (RFC 3711 §3.4). */
    static final long MAX_SRTCP_INDEX = (1L << 31) - 1;

    int ssrc;
    final SrtpReplayWindow rtpWindow;
    final SrtpReplayWindow rtcpWindow;
    /** Session keys when they follow this stream's index (key derivation rate != 0), else null: the context's. */
    final SrtpTransform transform;
    /** ROC assumed for the first packet (RFC 3711 §3.3.1: zero unless signalled). */
    long initialRoc;
    /** Sender: the next SRTCP index to use. */
    long nextSrtcpIndex;

    SrtpStream(final int ssrc, final int windowSize, final SrtpTransform transform)
    {
        this.ssrc = ssrc;
        this.rtpWindow = new SrtpReplayWindow(windowSize);
        this.rtcpWindow = new SrtpReplayWindow(windowSize);
        this.transform = transform;
    }

    /**
     * The SSRC this stream protects.
     *
     * @return the 32-bit SSRC.
     */
    public int ssrc()
    {
        return ssrc;
    }

    /**
     * The highest SRTP index sent or authenticated so far.
     *
     * @return the 48-bit index, or -1 before the first packet.
     */
    public long highestIndex()
    {
        return rtpWindow.highest();
    }

    /**
     * The rollover counter of the highest index (RFC 3711 §3.3.1).
     *
     * @return the ROC as an unsigned 32-bit value in a long.
     */
    public long roc()
    {
        final long highest = rtpWindow.highest();
        return highest < 0 ? initialRoc : highest >>> 16;
    }

    /**
     * The highest SRTCP index authenticated (receiver), or the next one to send (sender).
     *
     * @return the index, or -1 before the first packet on a receiver.
     */
    public long srtcpIndex()
    {
        return rtcpWindow.highest() >= 0 ? rtcpWindow.highest() : nextSrtcpIndex;
    }

    /**
     * RFC 3711 §3.3.1 (Appendix A): the index of a packet with sequence number {@code seq}, taken as the candidate
     * closest to the highest index among ROC - 1, ROC and ROC + 1. Before the first packet the ROC is
     * {@link #initialRoc}. A guess of ROC - 1 below zero is read as ROC 0, as libsrtp does for a stream's first
     * 2^15 indices, so that a stream may start at any sequence number.
     *
     * @param seq 16-bit sequence number.
     * @return the 48-bit index estimate (may exceed 2^48 - 1 when the ROC would wrap).
     */
    long estimateIndex(final int seq)
    {
        final long highest = rtpWindow.highest();
        if (highest < 0)
        {
            return (initialRoc << 16) | seq;
        }
        final long roc = highest >>> 16;
        final int sl = (int)highest & 0xFFFF;
        long v = roc;
        if (sl < 32768)
        {
            if (seq - sl > 32768)
            {
                v = roc - 1;
            }
        }
        else if (sl - 32768 > seq)
        {
            v = roc + 1;
        }
        if (v < 0)
        {
            v = 0;
        }
        return (v << 16) | seq;
    }

    /**
     * Sets the ROC (from signalling, or when joining a stream late), keeping the highest sequence number.
     *
     * @param roc the rollover counter, unsigned 32-bit.
     */
    void roc(final long roc)
    {
        final long highest = rtpWindow.highest();
        if (highest < 0)
        {
            initialRoc = roc;
        }
        else
        {
            rtpWindow.reset((roc << 16) | (highest & 0xFFFF));
        }
    }
}
