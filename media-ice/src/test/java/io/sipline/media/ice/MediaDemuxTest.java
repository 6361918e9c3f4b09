package io.sipline.media.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * {@link MediaDemux}: every first octet against the ranges of RFC 7983 §7, RTP against RTCP by the second octet
 * (RFC 5761 §4), short datagrams and bad bounds, and the SSRC of both.
 */
class MediaDemuxTest
{
    @Test
    void shouldClassifyEveryFirstOctetByTheRangesOfRfc7983()
    {
        final byte[] datagram = new byte[64];
        for (int b = 0; b < 256; b++)
        {
            datagram[0] = (byte)b;
            datagram[1] = 0; // RTP payload type 0 (PCMU) where the first octet says RTP
            final int expected;
            if (b <= 3)
            {
                expected = MediaDemux.STUN;
            }
            else if (b >= 16 && b <= 19)
            {
                expected = MediaDemux.ZRTP;
            }
            else if (b >= 20 && b <= 63)
            {
                expected = MediaDemux.DTLS;
            }
            else if (b >= 64 && b <= 79)
            {
                expected = MediaDemux.TURN_CHANNEL;
            }
            else if (b >= 128 && b <= 191)
            {
                expected = MediaDemux.RTP;
            }
            else
            {
                expected = MediaDemux.UNKNOWN;
            }
            assertEquals(MediaDemux.name(expected), MediaDemux.name(MediaDemux.classify(datagram, 0, 64)),
                "first octet " + b);
        }
    }

    @Test
    void shouldTellRtcpFromRtpByTheSecondOctet()
    {
        final byte[] packet = new byte[32];
        packet[0] = (byte)0x80;
        for (int type = 0; type < 256; type++)
        {
            packet[1] = (byte)type;
            final int expected = type >= 192 && type <= 223 ? MediaDemux.RTCP : MediaDemux.RTP;
            assertEquals(expected, MediaDemux.classify(packet, 0, 32), "second octet " + type);
        }
        // RTP with the marker bit and payload type 96 (second octet 0xE0 = 224) is RTP, 200 (SR) is RTCP.
        packet[1] = (byte)0xE0;
        assertEquals(MediaDemux.RTP, MediaDemux.classify(packet, 0, 32));
        packet[1] = (byte)200;
        assertEquals(MediaDemux.RTCP, MediaDemux.classify(packet, 0, 32));
    }

    @Test
    void shouldRefuseDatagramsShorterThanTheirHeaderAndBadBounds()
    {
        final byte[] buf = new byte[40];
        buf[0] = (byte)0x80;
        assertEquals(MediaDemux.RTP, MediaDemux.classify(buf, 0, 12));
        assertEquals(MediaDemux.UNKNOWN, MediaDemux.classify(buf, 0, 11));
        buf[1] = (byte)201;
        assertEquals(MediaDemux.RTCP, MediaDemux.classify(buf, 0, 8));
        assertEquals(MediaDemux.UNKNOWN, MediaDemux.classify(buf, 0, 7));
        buf[0] = 0;
        assertEquals(MediaDemux.STUN, MediaDemux.classify(buf, 0, 20));
        assertEquals(MediaDemux.UNKNOWN, MediaDemux.classify(buf, 0, 19));
        buf[0] = 22; // DTLS handshake record
        assertEquals(MediaDemux.DTLS, MediaDemux.classify(buf, 0, 13));
        assertEquals(MediaDemux.UNKNOWN, MediaDemux.classify(buf, 0, 12));
        buf[0] = 0x40;
        assertEquals(MediaDemux.TURN_CHANNEL, MediaDemux.classify(buf, 0, 4));
        assertEquals(MediaDemux.UNKNOWN, MediaDemux.classify(buf, 0, 3));
        assertEquals(MediaDemux.UNKNOWN, MediaDemux.classify(buf, -1, 20));
        assertEquals(MediaDemux.UNKNOWN, MediaDemux.classify(buf, 30, 20));
        assertEquals(MediaDemux.UNKNOWN, MediaDemux.classify(buf, 0, Integer.MAX_VALUE));
        assertEquals(MediaDemux.UNKNOWN, MediaDemux.classify(buf, 0, -5));
    }

    @Test
    void shouldReadTheSsrcOfRtpAndTheSenderSsrcOfRtcp()
    {
        final byte[] buf = new byte[48];
        buf[4] = (byte)0x80;
        buf[5] = 96;
        buf[12] = (byte)0xDE;
        buf[13] = (byte)0xAD;
        buf[14] = (byte)0xBE;
        buf[15] = (byte)0xEF;
        assertEquals(MediaDemux.RTP, MediaDemux.classify(buf, 4, 40));
        assertEquals(0xDEAD_BEEF, MediaDemux.ssrc(MediaDemux.RTP, buf, 4));
        buf[5] = (byte)200;
        buf[8] = 0x01;
        buf[9] = 0x02;
        buf[10] = 0x03;
        buf[11] = 0x04;
        assertEquals(MediaDemux.RTCP, MediaDemux.classify(buf, 4, 40));
        assertEquals(0x0102_0304, MediaDemux.ssrc(MediaDemux.RTCP, buf, 4));
    }
}
