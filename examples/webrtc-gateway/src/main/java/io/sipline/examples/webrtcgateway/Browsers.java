package io.sipline.examples.webrtcgateway;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.servlet.sip.URI;

/**
 * The browsers registered with the gateway (REGISTER over WebSocket, RFC 3261 §10 with RFC 7118's Contact): one
 * binding per user name, the Contact URI the browser gave (a {@code .invalid} host with {@code transport=ws}, which
 * the container reaches over the browser's connection) and when it expires. A call to a registered user goes to
 * that browser with the WebRTC profile; any other call goes to a SIP phone.
 * <p>
 * Threading: any thread (REGISTERs and INVITEs of different calls run on different threads); the map is concurrent
 * and a binding is immutable.
 */
final class Browsers
{
    /** The {@code ServletContext} attribute under which the application keeps this. */
    static final String ATTRIBUTE = Browsers.class.getName();

    private final Map<String, Binding> bindings = new ConcurrentHashMap<>();

    /** One browser's registration. */
    record Binding(URI contact, long expiresAtMs)
    {
    }

    /**
     * Binds {@code user} to {@code contact} for {@code seconds}, replacing an earlier binding.
     *
     * @param user    the user part of the address-of-record.
     * @param contact the Contact URI (copied).
     * @param seconds the granted expiry.
     * @param nowMs   the current time.
     */
    void bind(final String user, final URI contact, final int seconds, final long nowMs)
    {
        bindings.put(user, new Binding(contact.clone(), nowMs + seconds * 1000L));
    }

    /** Removes {@code user}'s binding, if any. */
    void unbind(final String user)
    {
        bindings.remove(user);
    }

    /**
     * @param user  a user name.
     * @param nowMs the current time.
     * @return a copy of the Contact URI of {@code user}'s live binding, or null (an expired one is dropped).
     */
    URI lookup(final String user, final long nowMs)
    {
        if (null == user)
        {
            return null;
        }
        final Binding b = bindings.get(user);
        if (null == b)
        {
            return null;
        }
        if (b.expiresAtMs() - nowMs <= 0)
        {
            bindings.remove(user, b);
            return null;
        }
        return b.contact().clone();
    }

    /** @return the live bindings (expired ones dropped). */
    int size(final long nowMs)
    {
        bindings.values().removeIf(b -> b.expiresAtMs() - nowMs <= 0);
        return bindings.size();
    }
}
