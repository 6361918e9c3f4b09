package io.sipline.container.router;

import java.lang.reflect.Proxy;
import java.util.Map;

import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.URI;

/**
 * {@link Proxy}-based requests for router tests: a method, headers (address headers answer
 * {@code getAddressHeader}), and optionally the application session that created the request.
 */
final class FakeRequests
{
    private FakeRequests()
    {
    }

    static SipServletRequest request(final String method, final Map<String, String> headers)
    {
        return request(method, headers, null);
    }

    static SipServletRequest request(final String method, final Map<String, String> headers,
        final String owningApplication)
    {
        final SipApplicationSession session = null == owningApplication ? null
            : proxy(SipApplicationSession.class, (self, m, args) -> switch (m.getName())
            {
                case "getApplicationName" -> owningApplication;
                default -> throw new UnsupportedOperationException(m.getName());
            });
        return proxy(SipServletRequest.class, (self, m, args) -> switch (m.getName())
        {
            case "getMethod" -> method;
            case "getHeader" -> headers.get((String) args[0]);
            case "getAddressHeader" -> address(headers.get((String) args[0]));
            case "getApplicationSession" -> session;
            case "toString" -> method;
            case "hashCode" -> System.identityHashCode(self);
            case "equals" -> self == args[0];
            default -> throw new UnsupportedOperationException(m.getName());
        });
    }

    /**
     * @param value a header value such as {@code "Alice" <sip:alice@example.com>;tag=1}, or {@code null}.
     * @return an address over the part in angle brackets.
     */
    private static Address address(final String value) throws ServletParseException
    {
        if (null == value)
        {
            return null;
        }
        final int open = value.indexOf('<');
        final int close = value.indexOf('>');
        if (open < 0 || close < open)
        {
            throw new ServletParseException("not a name-addr: " + value);
        }
        final String uriText = value.substring(open + 1, close);
        final URI uri = proxy(URI.class, (self, m, args) -> switch (m.getName())
        {
            case "toString" -> uriText;
            case "hashCode" -> uriText.hashCode();
            case "equals" -> self == args[0];
            default -> throw new UnsupportedOperationException(m.getName());
        });
        return proxy(Address.class, (self, m, args) -> switch (m.getName())
        {
            case "getURI" -> uri;
            case "toString" -> value;
            case "hashCode" -> value.hashCode();
            case "equals" -> self == args[0];
            default -> throw new UnsupportedOperationException(m.getName());
        });
    }

    private static <T> T proxy(final Class<T> type, final java.lang.reflect.InvocationHandler handler)
    {
        return type.cast(Proxy.newProxyInstance(FakeRequests.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
