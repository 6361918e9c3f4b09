package io.sipline.container.deploy;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import javax.servlet.sip.Address;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.TelURL;
import javax.servlet.sip.URI;

/**
 * Hand-made {@code javax.servlet.sip} objects for tests, built with {@link Proxy} so that the mapping rules are
 * tested against the API alone. Only the getters the rules use are answered; anything else throws.
 */
final class FakeSip
{
    private FakeSip()
    {
    }

    /**
     * @param text {@code sip:} or {@code sips:} URI, e.g. {@code sip:alice@example.com:5070;transport=tcp}.
     * @return a read-only {@link SipURI}.
     */
    static SipURI sipUri(final String text)
    {
        final int colon = text.indexOf(':');
        final String scheme = text.substring(0, colon);
        String rest = text.substring(colon + 1);
        final Map<String, String> params = new LinkedHashMap<>();
        final int firstSemicolon = rest.indexOf(';', Math.max(0, rest.indexOf('@')));
        if (firstSemicolon >= 0)
        {
            for (final String param : rest.substring(firstSemicolon + 1).split(";"))
            {
                final int eq = param.indexOf('=');
                params.put(eq < 0 ? param : param.substring(0, eq), eq < 0 ? "" : param.substring(eq + 1));
            }
            rest = rest.substring(0, firstSemicolon);
        }
        final int at = rest.lastIndexOf('@');
        final String user = at < 0 ? null : rest.substring(0, at);
        final String hostPort = rest.substring(at + 1);
        final String host;
        int port = -1;
        final int portColon = hostPort.startsWith("[") ? hostPort.indexOf(':', hostPort.indexOf(']'))
            : hostPort.indexOf(':');
        if (portColon >= 0)
        {
            host = hostPort.substring(0, portColon);
            port = Integer.parseInt(hostPort.substring(portColon + 1));
        }
        else
        {
            host = hostPort;
        }
        final int finalPort = port;
        return proxy(SipURI.class, (self, method, args) -> switch (method.getName())
        {
            case "getScheme" -> scheme;
            case "isSipURI" -> true;
            case "isSecure" -> "sips".equals(scheme.toLowerCase(Locale.ROOT));
            case "getUser" -> user;
            case "getHost" -> host;
            case "getPort" -> finalPort;
            case "getUserParam" -> params.get("user");
            case "getParameter" -> params.get((String) args[0]);
            case "toString" -> text;
            case "hashCode" -> text.hashCode();
            case "equals" -> self == args[0];
            default -> throw new UnsupportedOperationException(method.getName());
        });
    }

    /**
     * @param text a {@code tel:} URL, e.g. {@code tel:+1-555-0100;phone-context=example.com}.
     * @return a read-only {@link TelURL}.
     */
    static TelURL telUrl(final String text)
    {
        final String body = text.substring("tel:".length());
        final int semicolon = body.indexOf(';');
        final String number = semicolon < 0 ? body : body.substring(0, semicolon);
        final Map<String, String> params = new LinkedHashMap<>();
        if (semicolon >= 0)
        {
            for (final String param : body.substring(semicolon + 1).split(";"))
            {
                final int eq = param.indexOf('=');
                params.put(eq < 0 ? param : param.substring(0, eq), eq < 0 ? "" : param.substring(eq + 1));
            }
        }
        return proxy(TelURL.class, (self, method, args) -> switch (method.getName())
        {
            case "getScheme" -> "tel";
            case "isSipURI" -> false;
            case "isGlobal" -> number.startsWith("+");
            // the API: visual separators kept, leading '+' of a global number left out
            case "getPhoneNumber" -> number.startsWith("+") ? number.substring(1) : number;
            case "getParameter" -> params.get((String) args[0]);
            case "toString" -> text;
            case "hashCode" -> text.hashCode();
            case "equals" -> self == args[0];
            default -> throw new UnsupportedOperationException(method.getName());
        });
    }

    /**
     * @param text a {@code sip:}, {@code sips:} or {@code tel:} URI.
     * @return the matching fake.
     */
    static URI uri(final String text)
    {
        return text.startsWith("tel:") ? telUrl(text) : sipUri(text);
    }

    /**
     * @param displayName the display name, or {@code null}.
     * @param uri         the URI text.
     * @return a read-only {@link Address}.
     */
    static Address address(final String displayName, final String uri)
    {
        final URI parsed = uri(uri);
        final String text = null == displayName ? "<" + uri + ">" : '"' + displayName + "\" <" + uri + '>';
        return proxy(Address.class, (self, method, args) -> switch (method.getName())
        {
            case "getDisplayName" -> displayName;
            case "getURI" -> parsed;
            case "toString" -> text;
            case "hashCode" -> text.hashCode();
            case "equals" -> self == args[0];
            default -> throw new UnsupportedOperationException(method.getName());
        });
    }

    /**
     * @param method     the SIP method.
     * @param requestUri the Request-URI text.
     * @param from       the From address.
     * @param to         the To address.
     * @return a read-only request.
     */
    static SipServletRequest request(final String method, final String requestUri, final Address from,
        final Address to)
    {
        final URI uri = uri(requestUri);
        return proxy(SipServletRequest.class, (self, m, args) -> switch (m.getName())
        {
            case "getMethod" -> method;
            case "getRequestURI" -> uri;
            case "getFrom" -> from;
            case "getTo" -> to;
            case "toString" -> method + ' ' + requestUri;
            case "hashCode" -> System.identityHashCode(self);
            case "equals" -> self == args[0];
            default -> throw new UnsupportedOperationException(m.getName());
        });
    }

    /**
     * @param method     the SIP method.
     * @param requestUri the Request-URI text.
     * @return a request from alice@atlanta.example.com to bob@biloxi.example.com.
     */
    static SipServletRequest request(final String method, final String requestUri)
    {
        return request(method, requestUri, address("Alice", "sip:alice@atlanta.example.com"),
            address(null, "sip:bob@biloxi.example.com"));
    }

    private static <T> T proxy(final Class<T> type, final InvocationHandler handler)
    {
        return type.cast(Proxy.newProxyInstance(FakeSip.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
