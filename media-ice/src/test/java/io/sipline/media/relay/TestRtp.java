package io.sipline.media.relay;

/**
 * RTP packets for the relay's tests: the fixed 12-byte header (RFC 3550 §5.1: version 2, PCMU, a sequence number and
 * an SSRC) written into a caller's buffer, so that a test's send loop allocates nothing. Stateless.
 */
public final class TestRtp
{
    /** A packet's length: the header and 160 bytes of PCMU (20 ms at 8 kHz). */
    public static final int PCMU_LENGTH = 172;

    private TestRtp()
    {
    }

    /**
     * Writes the header of a PCMU packet with {@code seq} and {@code ssrc} into {@code packet}; the timestamp and the
     * payload are left as they are.
     *
     * @return {@link #PCMU_LENGTH}.
     */
    public static int pcmu(final byte[] packet, final int seq, final int ssrc)
    {
        packet[0] = (byte)0x80;
        packet[1] = 0;
        packet[2] = (byte)(seq >>> 8);
        packet[3] = (byte)seq;
        packet[8] = (byte)(ssrc >>> 24);
        packet[9] = (byte)(ssrc >>> 16);
        packet[10] = (byte)(ssrc >>> 8);
        packet[11] = (byte)ssrc;
        return PCMU_LENGTH;
    }
}
