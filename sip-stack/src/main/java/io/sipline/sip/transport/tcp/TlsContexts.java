package io.sipline.sip.transport.tcp;

import java.nio.file.Path;

import javax.net.ssl.SSLException;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * Builds the TLS contexts of the stack's connections (RFC 3261 §26.2: SIP over TLS) with the JDK's {@code SSLEngine}
 * (no native OpenSSL): the server side from a PEM certificate chain and PEM PKCS#8 private key, the client side with
 * the JDK's default trust store or the PEM certificates given. TLS 1.2 and 1.3 only (RFC 8996 deprecates older).
 *
 * <p>Stateless; thread-safe. A file that cannot be read or parsed is an {@link IllegalArgumentException} whose message
 * names the file and the reason, fit to show a user.
 */
public final class TlsContexts
{
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private TlsContexts()
    {
    }

    /**
     * @param certificate PEM certificate chain, leaf first.
     * @param privateKey  PEM PKCS#8 key of the leaf ("BEGIN PRIVATE KEY").
     */
    public static SslContext server(final Path certificate, final Path privateKey)
    {
        try
        {
            return SslContextBuilder.forServer(certificate.toFile(), privateKey.toFile())
                .sslProvider(SslProvider.JDK)
                .protocols(PROTOCOLS)
                .build();
        }
        catch (final SSLException | IllegalArgumentException e)
        {
            throw new IllegalArgumentException("cannot use TLS certificate " + certificate + " with key " + privateKey
                + ": " + rootMessage(e), e);
        }
    }

    /** @param trusted PEM certificates to trust, or null for the JDK's default trust store. */
    public static SslContext client(final Path trusted)
    {
        try
        {
            final SslContextBuilder builder = SslContextBuilder.forClient()
                .sslProvider(SslProvider.JDK)
                .protocols(PROTOCOLS);
            if (null != trusted)
            {
                builder.trustManager(trusted.toFile());
            }
            return builder.build();
        }
        catch (final SSLException | IllegalArgumentException e)
        {
            throw new IllegalArgumentException("cannot use TLS trusted certificates " + trusted + ": "
                + rootMessage(e), e);
        }
    }

    private static String rootMessage(final Throwable e)
    {
        Throwable t = e;
        while (null != t.getCause() && t.getCause() != t)
        {
            t = t.getCause();
        }
        return null == t.getMessage() ? t.getClass().getSimpleName() : t.getMessage();
    }
}
