package io.sipline.container.deploy;

import java.util.Locale;

import javax.servlet.sip.Address;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.TelURL;
import javax.servlet.sip.URI;

/**
 * A variable of the servlet mapping rules (JSR 289 §16.3 "Servlet Mapping Rules", inherited from JSR 116 §11.2),
 * compiled once from its dotted name and then resolved against a request:
 * <pre>
 * request.method
 * request.uri                      request.uri.scheme  .user  .host  .port  .tel  .param.&lt;name&gt;
 * request.from   request.from.display-name   request.from.uri   request.from.uri.scheme ... .param.&lt;name&gt;
 * request.to     request.to.display-name     request.to.uri     request.to.uri.scheme   ... .param.&lt;name&gt;
 * </pre>
 * Resolution returns {@code null} when the variable has no value for the request (a tel URL has no host, a URI has
 * no such parameter, an address has no display name): {@code exists} is then false and every comparison fails.
 * <ul>
 *   <li>{@code .port}: the explicit port, else the default of the scheme (5060 for sip, 5061 for sips).</li>
 *   <li>{@code .tel}: the subscriber number of a tel URL, or the user part of a sip/sips URI carrying
 *       {@code user=phone} (its parameters cut off), without a leading {@code +} in both cases, as
 *       {@link TelURL#getPhoneNumber()} returns it.</li>
 *   <li>{@code request.uri}, {@code request.from}, {@code request.to} and their {@code .uri} resolve to the
 *       {@code toString()} form of the URI or address.</li>
 * </ul>
 * <p>
 * Threading: immutable; one instance is shared by every thread that evaluates a rule.
 */
public final class RequestVariable
{
    private enum Root
    {
        METHOD, REQUEST_URI, FROM, TO
    }

    private enum Part
    {
        WHOLE, DISPLAY_NAME, URI, SCHEME, USER, HOST, PORT, TEL, PARAM
    }

    private static final int DEFAULT_SIP_PORT = 5060;
    private static final int DEFAULT_SIPS_PORT = 5061;

    private final String name;
    private final Root root;
    private final Part part;
    private final String parameterName;

    private RequestVariable(final String name, final Root root, final Part part, final String parameterName)
    {
        this.name = name;
        this.root = root;
        this.part = part;
        this.parameterName = parameterName;
    }

    /**
     * @param name the dotted variable name as written in {@code <var>}.
     * @return the compiled variable.
     * @throws IllegalArgumentException when the name is not one of the variables the specification defines.
     */
    public static RequestVariable of(final String name)
    {
        if (null == name)
        {
            throw new IllegalArgumentException("missing variable name");
        }
        if ("request.method".equals(name))
        {
            return new RequestVariable(name, Root.METHOD, Part.WHOLE, null);
        }
        if (name.equals("request.uri") || name.startsWith("request.uri."))
        {
            return uriVariable(name, Root.REQUEST_URI, name.substring("request.uri".length()));
        }
        if (name.equals("request.from") || name.startsWith("request.from."))
        {
            return addressVariable(name, Root.FROM, name.substring("request.from".length()));
        }
        if (name.equals("request.to") || name.startsWith("request.to."))
        {
            return addressVariable(name, Root.TO, name.substring("request.to".length()));
        }
        throw unknown(name);
    }

    private static RequestVariable addressVariable(final String name, final Root root, final String rest)
    {
        if (rest.isEmpty())
        {
            return new RequestVariable(name, root, Part.WHOLE, null);
        }
        if (".display-name".equals(rest))
        {
            return new RequestVariable(name, root, Part.DISPLAY_NAME, null);
        }
        if (".uri".equals(rest))
        {
            return new RequestVariable(name, root, Part.URI, null);
        }
        if (rest.startsWith(".uri."))
        {
            return uriVariable(name, root, rest.substring(".uri".length()));
        }
        throw unknown(name);
    }

    private static RequestVariable uriVariable(final String name, final Root root, final String rest)
    {
        final Part part = switch (rest)
        {
            case "" -> Root.REQUEST_URI == root ? Part.WHOLE : Part.URI;
            case ".scheme" -> Part.SCHEME;
            case ".user" -> Part.USER;
            case ".host" -> Part.HOST;
            case ".port" -> Part.PORT;
            case ".tel" -> Part.TEL;
            default -> null;
        };
        if (null != part)
        {
            return new RequestVariable(name, root, part, null);
        }
        if (rest.startsWith(".param.") && rest.length() > ".param.".length())
        {
            return new RequestVariable(name, root, Part.PARAM, rest.substring(".param.".length()));
        }
        throw unknown(name);
    }

    private static IllegalArgumentException unknown(final String name)
    {
        return new IllegalArgumentException("unknown variable '" + name + "' (JSR 289 §16.3 defines request.method, "
            + "request.uri[.scheme|.user|.host|.port|.tel|.param.NAME], "
            + "request.from|to[.display-name|.uri[.scheme|.user|.host|.port|.tel|.param.NAME]])");
    }

    /**
     * @return the variable's dotted name as written in the descriptor.
     */
    public String name()
    {
        return name;
    }

    /**
     * @param request the request being matched.
     * @return the variable's value for this request, or {@code null} when it has none.
     */
    public String valueOf(final SipServletRequest request)
    {
        return switch (root)
        {
            case METHOD -> request.getMethod();
            case REQUEST_URI -> uriPart(request.getRequestURI());
            case FROM -> addressPart(request.getFrom());
            case TO -> addressPart(request.getTo());
        };
    }

    private String addressPart(final Address address)
    {
        if (null == address)
        {
            return null;
        }
        return switch (part)
        {
            case WHOLE -> address.toString();
            case DISPLAY_NAME -> address.getDisplayName();
            default -> uriPart(address.getURI());
        };
    }

    private String uriPart(final URI uri)
    {
        if (null == uri)
        {
            return null;
        }
        return switch (part)
        {
            case WHOLE, URI -> uri.toString();
            case SCHEME -> uri.getScheme();
            case USER -> uri instanceof SipURI sip ? sip.getUser() : null;
            case HOST -> uri instanceof SipURI sip ? sip.getHost() : null;
            case PORT -> uri instanceof SipURI sip ? Integer.toString(port(sip)) : null;
            case TEL -> telephoneNumber(uri);
            case PARAM -> uri.getParameter(parameterName);
            case DISPLAY_NAME -> null;
        };
    }

    private static int port(final SipURI uri)
    {
        final int port = uri.getPort();
        if (port > 0)
        {
            return port;
        }
        return uri.isSecure() || "sips".equalsIgnoreCase(uri.getScheme()) ? DEFAULT_SIPS_PORT : DEFAULT_SIP_PORT;
    }

    private static String telephoneNumber(final URI uri)
    {
        if (uri instanceof TelURL tel)
        {
            return stripPlus(tel.getPhoneNumber());
        }
        if (uri instanceof SipURI sip)
        {
            final String userParam = sip.getUserParam();
            final String user = sip.getUser();
            if (null != userParam && "phone".equals(userParam.toLowerCase(Locale.ROOT)) && null != user)
            {
                // RFC 3261 §19.1.1: user=phone makes the user part a telephone-subscriber; cut its parameters.
                final int semicolon = user.indexOf(';');
                return stripPlus(semicolon >= 0 ? user.substring(0, semicolon) : user);
            }
        }
        return null;
    }

    private static String stripPlus(final String number)
    {
        return null != number && number.startsWith("+") ? number.substring(1) : number;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof RequestVariable that && name.equals(that.name);
    }

    @Override
    public int hashCode()
    {
        return name.hashCode();
    }

    @Override
    public String toString()
    {
        return name;
    }
}
