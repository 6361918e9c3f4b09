package io.sipline.container.dispatch;

import java.util.Iterator;

import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipURI;

import io.sipline.container.address.SipAddresses;
import io.sipline.container.address.SipURIImpl;

/**
 * Moves a Contact the container wrote, and the application then edited (its user part or parameters, JSR 289
 * §4.1.3), to the Contact of the transport the message leaves on: the transport's own URI (scheme, host, port,
 * {@code transport}) with the edited one's user part, its other URI parameters, display name and header parameters.
 * A Contact whose host and port are not ours is the application's own and is left alone.
 * <p>
 * Threading: stateless; called on a shard, on the cold path of a TCP, TLS or WebSocket message whose Contact the
 * application edited (it parses and allocates).
 */
final class EditedContacts
{
    private EditedContacts()
    {
    }

    /**
     * The edited Contact {@code value} moved onto {@code wanted} (the transport's own Contact), or null when
     * {@code value} does not name {@code host} on one of {@code ownPorts}, or does not parse.
     */
    static String moved(final String value, final String wanted, final String host, final int[] ownPorts)
    {
        try
        {
            final Address edited = SipAddresses.parseAddress(value);
            if (!(edited.getURI() instanceof SipURI from) || !host.equalsIgnoreCase(from.getHost())
                || !ours(from.getPort(), ownPorts))
            {
                return null;
            }
            final Address moved = SipAddresses.parseAddress(wanted);
            final SipURI to = (SipURI)moved.getURI();
            to.setUser(from.getUser());
            for (final Iterator<String> names = from.getParameterNames(); names.hasNext(); )
            {
                final String name = names.next();
                if (!SipURIImpl.isContainerContactParameter(name))
                {
                    to.setParameter(name, from.getParameter(name));
                }
            }
            moved.setDisplayName(edited.getDisplayName());
            for (final Iterator<String> names = edited.getParameterNames(); names.hasNext(); )
            {
                final String name = names.next();
                moved.setParameter(name, edited.getParameter(name));
            }
            return moved.toString();
        }
        catch (final ServletParseException | IllegalArgumentException e)
        {
            return null;
        }
    }

    private static boolean ours(final int port, final int[] ownPorts)
    {
        for (final int p : ownPorts)
        {
            if (p >= 0 && p == port)
            {
                return true;
            }
        }
        return false;
    }
}
