package io.sipline.container.dispatch;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipURI;

import io.sipline.container.address.BaseUri;
import io.sipline.container.address.SipAddresses;
import io.sipline.sip.stack.SipStack;

/**
 * The value of the {@link SipServlet#OUTBOUND_INTERFACES} context attribute (JSR 289 §4.1.5): one read-only
 * {@code SipURI} per listening endpoint of the server, {@code sip:HOST:PORT;transport=udp|tcp} and
 * {@code sips:HOST:PORT;transport=tcp} for TLS, in the order the server listens; an application picks one of them
 * for {@code setOutboundInterface}. Made once, when the server has bound its ports.
 * <p>
 * Threading: stateless; called on the starting thread.
 */
final class OutboundInterfaces
{
    private OutboundInterfaces()
    {
    }

    static List<SipURI> of(final SipStack stack)
    {
        final List<SipURI> out = new ArrayList<>();
        for (final InetSocketAddress a : stack.localAddresses())
        {
            out.add(uri(a, "udp", false));
        }
        for (final InetSocketAddress a : stack.tcpAddresses())
        {
            out.add(uri(a, "tcp", false));
        }
        for (final InetSocketAddress a : stack.tlsAddresses())
        {
            out.add(uri(a, "tcp", true));
        }
        return List.copyOf(out);
    }

    private static SipURI uri(final InetSocketAddress endpoint, final String transport, final boolean secure)
    {
        final String ip = endpoint.getAddress().getHostAddress();
        final SipURI uri = SipAddresses.sipUri(null, endpoint.getAddress() instanceof Inet6Address
            ? "[" + ip + "]" : ip);
        uri.setSecure(secure);
        uri.setPort(endpoint.getPort());
        uri.setTransportParam(transport);
        return (SipURI)((BaseUri)uri).readOnly("an outbound interface"); // shared by every application
    }
}
