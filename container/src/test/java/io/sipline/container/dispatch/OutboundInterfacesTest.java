package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipURI;

import org.junit.jupiter.api.Test;

/**
 * {@code SipServlet.OUTBOUND_INTERFACES} (JSR 289 §4.1.5): every application finds the server's listening endpoints
 * as read-only SIP URIs, UDP then TCP, with the ports the kernel gave.
 */
class OutboundInterfacesTest
{
    /** Answers 200. */
    public static final class Answering extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doOptions(final SipServletRequest req) throws IOException
        {
            req.createResponse(200).send();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldListEveryListeningEndpointForEveryApplication() throws Exception
    {
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("interfaces", new Answering(), Map.of()));
            final int port = server.stack().localAddresses().getFirst().getPort();
            final List<SipURI> interfaces = (List<SipURI>)server.registry().application("interfaces")
                .servletContext().getAttribute(SipServlet.OUTBOUND_INTERFACES);
            assertEquals(List.of("sip:127.0.0.1:" + port + ";transport=udp", "sip:127.0.0.1:" + port
                + ";transport=tcp"), interfaces.stream().map(Object::toString).toList());
            assertThrows(IllegalStateException.class, () -> interfaces.getFirst().setPort(1),
                "shared by every application: read-only");
            assertThrows(UnsupportedOperationException.class, () -> interfaces.add(interfaces.getFirst()));
        }
    }
}
