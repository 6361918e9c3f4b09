package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The transport a next-hop URI asks for and the URIs of ours per transport: {@code transport=ws} is WS, or WSS on a
 * SIPS URI (RFC 7118 §5.2: one URI parameter value for both), and our own WS URIs carry {@code transport=ws}.
 */
class TransportsTest
{
    @Test
    void shouldAskForWebSocketByTheTransportParameterAndTheScheme()
    {
        assertEquals(Transports.WS, Transports.asked(hop("ws", false)));
        assertEquals(Transports.WSS, Transports.asked(hop("WS", true)));
        assertEquals(Transports.TLS, Transports.asked(hop("tcp", true)));
        assertEquals(Transports.TCP, Transports.asked(hop("tcp", false)));
        assertEquals(Transports.TLS, Transports.asked(hop(null, true)));
        assertEquals(Transports.NONE, Transports.asked(hop(null, false)));
        assertEquals(Transports.UNSUPPORTED, Transports.asked(hop("sctp", false)));
        assertTrue(Transports.isWebSocket(Transports.WSS));
        assertFalse(Transports.isWebSocket(Transports.TLS));
        assertEquals("WSS", Transports.NAMES[Transports.index("wss")]);
    }

    @Test
    void shouldWriteOurUriForEachTransport()
    {
        assertEquals("sip:192.0.2.1:5060", uri(Transports.UDP, null));
        assertEquals("sip:192.0.2.1:5060;transport=tcp", uri(Transports.TCP, null));
        assertEquals("sips:192.0.2.1:5060", uri(Transports.TLS, null));
        assertEquals("sip:tok@192.0.2.1:5060;transport=ws", uri(Transports.WS, "tok"));
        assertEquals("sip:192.0.2.1:5060;transport=ws", uri(Transports.WSS, null));
    }

    private static NextHop.Hop hop(final String transport, final boolean sips)
    {
        return new NextHop.Hop("example.com", 5060, transport, sips, null);
    }

    private static String uri(final int transport, final String user)
    {
        return Transports.uri(new StringBuilder(), transport, user, "192.0.2.1", 5060).toString();
    }
}
