package io.sipline.media.sdp;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionDescriptionTest
{
    static final String PHONE = """
        v=0
        o=alice 2890844526 2890844526 IN IP4 198.51.100.7
        s=call
        c=IN IP4 198.51.100.7
        t=0 0
        a=sendrecv
        m=audio 49170 RTP/AVP 0 8 101
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:101 telephone-event/8000
        a=fmtp:101 0-16
        a=rtcp:49175 IN IP4 198.51.100.8
        a=ptime:20
        m=video 0 RTP/AVP 96
        c=IN IP4 198.51.100.9
        b=AS:512
        a=rtpmap:96 H264/90000
        """;

    @Test
    void shouldReadTheFieldsAnchoringNeeds()
    {
        final SessionDescription d = SessionDescription.parse(PHONE);
        assertEquals("alice 2890844526 2890844526 IN IP4 198.51.100.7", d.origin());
        assertEquals(new SdpConnection("IP4", "198.51.100.7"), d.connection());
        assertEquals("sendrecv", d.direction());
        assertEquals(2, d.media().size());
        final MediaDescription audio = d.media().get(0);
        assertEquals("audio", audio.media());
        assertEquals(49170, audio.port());
        assertEquals("RTP/AVP", audio.proto());
        assertEquals(List.of("0", "8", "101"), audio.formats());
        assertEquals("telephone-event/8000", audio.rtpmap("101"));
        assertEquals("0-16", audio.fmtp("101"));
        assertNull(audio.fmtp("0"));
        assertEquals(49175, audio.rtcpPort());
        assertEquals("198.51.100.8", audio.rtcpAddress());
        assertEquals("sendrecv", audio.direction(d.direction()));
        assertTrue(audio.isRtp());
        final MediaDescription video = d.media().get(1);
        assertEquals(0, video.port());
        assertEquals(new SdpConnection("IP4", "198.51.100.9"), d.connectionOf(video));
        assertEquals(List.of("AS:512"), video.bandwidths());
    }

    @Test
    void shouldWriteBackWhatItReadWithCrlf()
    {
        final String written = SessionDescription.parse(PHONE).format();
        assertEquals(PHONE.replace("\n", "\r\n"), written);
        assertEquals(written, SessionDescription.parse(written).format());
    }

    @Test
    void shouldDefaultRtcpToThePortAboveAndKnowMux()
    {
        final MediaDescription m = SessionDescription.parse("v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nt=0 0\r\n" +
            "m=audio 5004 RTP/SAVP 0\r\na=rtcp-mux\r\na=recvonly\r\n").media().get(0);
        assertEquals(5005, m.rtcpPort());
        assertTrue(m.rtcpMux());
        assertEquals("recvonly", m.direction(null));
    }

    @Test
    void shouldRefuseMalformedDescriptionsWithTheLineNamed()
    {
        assertThrows(SdpException.class, () -> SessionDescription.parse(""));
        assertTrue(assertThrows(SdpException.class, () -> SessionDescription.parse("o=- 1 1 IN IP4 1.2.3.4\n"))
            .getMessage().contains("v=0"));
        assertTrue(assertThrows(SdpException.class, () -> SessionDescription.parse(
            "v=0\no=- 1 1 IN IP4 1.2.3.4\ns=-\nm=audio 70000 RTP/AVP 0\n")).getMessage().contains("over 65535"));
        assertTrue(assertThrows(SdpException.class, () -> SessionDescription.parse(
            "v=0\no=- 1 1 IN IP4 1.2.3.4\ns=-\nc=IN IP4\n")).getMessage().contains("c="));
        assertTrue(assertThrows(SdpException.class, () -> SessionDescription.parse(
            "v=0\ns=-\nm=audio 5 RTP/AVP 0\n")).getMessage().contains("o="));
        assertThrows(SdpException.class, () -> SessionDescription.parse("v=0\no=- 1 1 IN IP4 1.2.3.4\ngarbage\n"));
        assertThrows(SdpException.class, () -> SessionDescription.parse(
            "v=0\no=- 1 1 IN IP4 1.2.3.4\ns=-\nm=audio x RTP/AVP 0\n"));
    }
}
