package io.sipline.sip.transport.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;

import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * Builds the TLS contexts of the stack's connections (RFC 3261 §26.2: SIP over TLS) with the JDK's {@code SSLEngine}
 * (no native OpenSSL): the server side from a PEM certificate chain and PEM PKCS#8 private key, the client side with
 * the JDK's default trust store or the PEM certificates given. TLS 1.2 and 1.3 only (RFC 8996 deprecates older).
 * The client side checks the server's identity by RFC 5922 ({@link SipDomainTrustManager}: the SIP domain against
 * the certificate's {@code sip:} URIs, else its DNS names), not by the HTTPS rules of the JDK's endpoint
 * identification, which is turned off for it.
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
            return SslContextBuilder.forClient()
                .sslProvider(SslProvider.JDK)
                .protocols(PROTOCOLS)
                .trustManager(new SipDomainTrustManager(pkixTrust(trusted)))
                // RFC 5922 replaces the HTTPS host name rules (RFC 2818): SipDomainTrustManager checks the identity.
                .endpointIdentificationAlgorithm(null)
                .build();
        }
        catch (final IllegalArgumentException | IOException | GeneralSecurityException e)
        {
            throw new IllegalArgumentException("cannot use TLS trusted certificates " + trusted + ": "
                + rootMessage(e), e);
        }
    }

    /** The JDK's PKIX trust manager over the given PEM certificates, or over its default trust store for null. */
    private static X509ExtendedTrustManager pkixTrust(final Path trusted) throws IOException, GeneralSecurityException
    {
        KeyStore store = null;
        if (null != trusted)
        {
            final Collection<? extends Certificate> certificates;
            try (InputStream in = Files.newInputStream(trusted))
            {
                certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
            }
            if (certificates.isEmpty())
            {
                throw new IllegalArgumentException("no certificate in the file");
            }
            store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (final Certificate certificate : certificates)
            {
                store.setCertificateEntry("trusted-" + i++, certificate);
            }
        }
        final TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        for (final TrustManager manager : factory.getTrustManagers())
        {
            if (manager instanceof X509ExtendedTrustManager x509)
            {
                return x509;
            }
        }
        throw new GeneralSecurityException("the JDK offers no X509ExtendedTrustManager");
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
