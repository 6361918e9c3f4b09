package io.sipline.sip.transport.tcp;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedTrustManager;

import io.netty.util.NetUtil;

/**
 * The server identity check of outbound SIP over TLS (RFC 5922 §7.3): a trust manager that first lets the configured
 * PKIX trust manager validate the chain (RFC 5280, RFC 5922 §7.1 first paragraph), then requires the server's
 * certificate to name the SIP domain the connection was opened for. That domain travels as the {@link SSLEngine}'s
 * peer host ({@link TcpShardConnections#flowTo(java.net.InetSocketAddress, boolean, byte[], int, int)} passes it to
 * {@code SslContext.newHandler}), so one context serves every connection.
 *
 * <p><b>Identities</b> (RFC 5922 §7.1), in this order, the first kind present being the only one used: subjectAltName
 * URI values with the scheme {@code sip} and no user part (no {@code @}), their host part; else subjectAltName DNS
 * names; else, only when the certificate has no subjectAltName extension at all, the subject's CN. <b>Comparison</b>
 * (§7.2): the whole DNS name, ASCII case-insensitive (RFC 4343); no suffix match and no wildcard
 * ({@code *.example.com} matches only itself). A domain that is an IP literal (a {@code sips:} URI with a numeric
 * host, which RFC 5922 does not cover) matches a subjectAltName iPAddress of the same address (RFC 2818 §3.1).
 *
 * <p><b>On a mismatch</b> one log line names the domain, the server's port and the identities the certificate holds,
 * and the handshake fails with a {@link CertificateException}: no SIP byte is sent on the connection, the connection
 * closes, and the client transactions waiting on it get a transport error (RFC 3261 §17.1.4).
 *
 * <p><b>Threading.</b> Stateless apart from the delegate: safe on every connection's loop at once. Used only in a
 * client context; the client-certificate methods just delegate.
 */
final class SipDomainTrustManager extends X509ExtendedTrustManager
{
    private static final Logger LOG = System.getLogger("io.sipline.sip.transport.tcp");
    /** subjectAltName GeneralName tags (RFC 5280 §4.2.1.6). */
    private static final int SAN_DNS = 2;
    private static final int SAN_URI = 6;
    private static final int SAN_IP = 7;

    private final X509ExtendedTrustManager pkix;

    SipDomainTrustManager(final X509ExtendedTrustManager pkix)
    {
        this.pkix = pkix;
    }

    @Override
    public void checkServerTrusted(final X509Certificate[] chain, final String authType, final SSLEngine engine)
        throws CertificateException
    {
        pkix.checkServerTrusted(chain, authType, engine);
        // The engine knows the SIP domain (its peer host) and the server port; the address is not known here.
        checkDomain(chain, engine.getPeerHost(), "on port " + engine.getPeerPort());
    }

    @Override
    public void checkServerTrusted(final X509Certificate[] chain, final String authType, final Socket socket)
        throws CertificateException
    {
        pkix.checkServerTrusted(chain, authType, socket);
        final String host = socket instanceof SSLSocket ssl && null != ssl.getHandshakeSession() ?
            ssl.getHandshakeSession().getPeerHost() : null;
        checkDomain(chain, host, "at " + socket.getRemoteSocketAddress());
    }

    @Override
    public void checkServerTrusted(final X509Certificate[] chain, final String authType) throws CertificateException
    {
        // Without an engine or a socket there is no SIP domain to compare with: refuse rather than skip the check.
        throw new CertificateException("RFC 5922: no SIP domain known for this TLS connection");
    }

    @Override
    public void checkClientTrusted(final X509Certificate[] chain, final String authType, final SSLEngine engine)
        throws CertificateException
    {
        pkix.checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(final X509Certificate[] chain, final String authType, final Socket socket)
        throws CertificateException
    {
        pkix.checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(final X509Certificate[] chain, final String authType) throws CertificateException
    {
        pkix.checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers()
    {
        return pkix.getAcceptedIssuers();
    }

    private static void checkDomain(final X509Certificate[] chain, final String domain, final String peer)
        throws CertificateException
    {
        if (null == chain || 0 == chain.length)
        {
            throw new CertificateException("RFC 5922: the TLS server " + peer + " sent no certificate");
        }
        if (null == domain || domain.isEmpty())
        {
            throw new CertificateException("RFC 5922: no SIP domain known for the TLS server " + peer);
        }
        if (matches(domain, chain[0]))
        {
            return;
        }
        final String message = "TLS server " + peer + " presented a certificate for " + identities(chain[0])
            + " that does not match SIP domain " + domain + " (RFC 5922 §7.3): connection closed";
        LOG.log(Level.WARNING, message);
        throw new CertificateException(message);
    }

    /**
     * True when the certificate names the SIP domain (RFC 5922 §7.1, §7.2; an IP literal against iPAddress names).
     *
     * @param domain a host name, an IPv4 literal or an IPv6 literal (brackets allowed).
     */
    static boolean matches(final String domain, final X509Certificate certificate) throws CertificateParsingException
    {
        final String bare = domain.startsWith("[") && domain.endsWith("]") ?
            domain.substring(1, domain.length() - 1) : domain;
        if (NetUtil.isValidIpV4Address(bare) || NetUtil.isValidIpV6Address(bare))
        {
            final InetAddress wanted = InetAddress.ofLiteral(bare);
            for (final String ip : values(certificate, SAN_IP))
            {
                if (NetUtil.isValidIpV4Address(ip) || NetUtil.isValidIpV6Address(ip))
                {
                    if (wanted.equals(InetAddress.ofLiteral(ip)))
                    {
                        return true;
                    }
                }
            }
            return false;
        }
        for (final String identity : domainIdentities(certificate))
        {
            // §7.2: whole DNS names, case-insensitive; a wildcard or a leading dot is compared as plain text.
            if (identity.equalsIgnoreCase(bare))
            {
                return true;
            }
        }
        return false;
    }

    /** The SIP domain identities of a certificate, by the rules of RFC 5922 §7.1 (see the class javadoc). */
    static List<String> domainIdentities(final X509Certificate certificate) throws CertificateParsingException
    {
        final List<String> sip = new ArrayList<>();
        for (final String uri : values(certificate, SAN_URI))
        {
            final String host = sipUriHost(uri);
            if (null != host)
            {
                sip.add(host);
            }
        }
        if (!sip.isEmpty())
        {
            return sip;
        }
        final List<String> dns = values(certificate, SAN_DNS);
        if (!dns.isEmpty() || null != certificate.getSubjectAlternativeNames())
        {
            return dns; // §7.1 item 2: the CN only when there is no subjectAltName at all
        }
        final String cn = commonName(certificate);
        return null == cn ? List.of() : List.of(cn);
    }

    /** What the certificate names, for the log line: every subjectAltName as "type:value", else the CN. */
    static String identities(final X509Certificate certificate)
    {
        try
        {
            final Collection<List<?>> names = certificate.getSubjectAlternativeNames();
            if (null == names)
            {
                return "[CN=" + commonName(certificate) + "]";
            }
            final List<String> all = new ArrayList<>();
            for (final List<?> name : names)
            {
                final int type = (Integer)name.get(0);
                final String kind = switch (type)
                {
                    case SAN_DNS -> "DNS";
                    case SAN_URI -> "URI";
                    case SAN_IP -> "IP";
                    default -> "type" + type;
                };
                all.add(kind + ":" + name.get(1));
            }
            return all.toString();
        }
        catch (final CertificateParsingException e)
        {
            return "[unreadable subjectAltName: " + e.getMessage() + "]";
        }
    }

    /**
     * The host part of a SAN URI that may carry a SIP domain identity (§7.1): scheme {@code sip} (not {@code sips}),
     * no user part; null otherwise. Parameters, headers and a port are not part of the host.
     */
    static String sipUriHost(final String uri)
    {
        if (uri.length() < 5 || !uri.regionMatches(true, 0, "sip:", 0, 4) || uri.indexOf('@') >= 0)
        {
            return null;
        }
        final String rest = uri.substring(4);
        if (rest.startsWith("["))
        {
            final int close = rest.indexOf(']');
            return close < 0 ? null : rest.substring(0, close + 1);
        }
        int end = rest.length();
        for (int i = 0; i < rest.length(); i++)
        {
            final char c = rest.charAt(i);
            if (c == ';' || c == '?' || c == ':')
            {
                end = i;
                break;
            }
        }
        return 0 == end ? null : rest.substring(0, end);
    }

    private static List<String> values(final X509Certificate certificate, final int type)
        throws CertificateParsingException
    {
        final Collection<List<?>> names = certificate.getSubjectAlternativeNames();
        if (null == names)
        {
            return List.of();
        }
        final List<String> out = new ArrayList<>();
        for (final List<?> name : names)
        {
            if (name.size() >= 2 && Integer.valueOf(type).equals(name.get(0)) && name.get(1) instanceof String s)
            {
                out.add(s);
            }
        }
        return out;
    }

    private static String commonName(final X509Certificate certificate)
    {
        try
        {
            final LdapName name = new LdapName(certificate.getSubjectX500Principal().getName());
            for (final Rdn rdn : name.getRdns())
            {
                if ("CN".equals(rdn.getType().toUpperCase(Locale.ROOT)))
                {
                    return String.valueOf(rdn.getValue());
                }
            }
            return null;
        }
        catch (final InvalidNameException e)
        {
            return null;
        }
    }
}
