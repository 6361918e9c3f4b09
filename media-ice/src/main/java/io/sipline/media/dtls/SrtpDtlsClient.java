package io.sipline.media.dtls;

import java.io.IOException;
import java.util.Hashtable;

import org.bouncycastle.tls.CertificateRequest;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.DefaultTlsClient;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsAuthentication;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsExtensionsUtils;
import org.bouncycastle.tls.TlsSRTPUtils;
import org.bouncycastle.tls.TlsServerCertificate;
import org.bouncycastle.tls.TlsUtils;

/**
 * The DTLS 1.2 client of a DTLS-SRTP leg ({@code a=setup:active}): offers {@code use_srtp}, presents our
 * certificate when asked (RFC 5763 §5 requires it), checks the server's certificate against its fingerprint, and
 * exports the SRTP keys when the handshake completes. ECDHE suites only; the server may sign with ECDSA or RSA.
 *
 * <p>Not thread-safe; used by one handshake thread.
 */
final class SrtpDtlsClient extends DefaultTlsClient
{
    private static final int[] CIPHER_SUITES = {
        CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        CipherSuite.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        CipherSuite.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        CipherSuite.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        CipherSuite.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
        CipherSuite.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
    };

    private final DtlsSrtpNegotiation negotiation;
    private final int initialResendMs;

    SrtpDtlsClient(final DtlsSrtpNegotiation negotiation, final int initialResendMs)
    {
        super(negotiation.crypto());
        this.negotiation = negotiation;
        this.initialResendMs = initialResendMs;
    }

    @Override
    protected ProtocolVersion[] getSupportedVersions()
    {
        return ProtocolVersion.DTLSv12.only();
    }

    @Override
    protected int[] getSupportedCipherSuites()
    {
        return TlsUtils.getSupportedCipherSuites(getCrypto(), CIPHER_SUITES);
    }

    @Override
    public int getHandshakeTimeoutMillis()
    {
        // The endpoint's own deadline, on its injected clock, ends the handshake.
        return 0;
    }

    @Override
    public int getHandshakeResendTimeMillis()
    {
        return initialResendMs;
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"}) // Bouncy Castle's extension tables are raw Hashtables.
    public Hashtable getClientExtensions() throws IOException
    {
        final Hashtable extensions = TlsExtensionsUtils.ensureExtensionsInitialised(
            super.getClientExtensions());
        TlsSRTPUtils.addUseSRTPExtension(extensions, negotiation.offer());
        return extensions;
    }

    @Override
    @SuppressWarnings("rawtypes") // Bouncy Castle's extension tables are raw Hashtables.
    public void processServerExtensions(final Hashtable serverExtensions) throws IOException
    {
        super.processServerExtensions(serverExtensions);
        negotiation.accept(TlsSRTPUtils.getUseSRTPExtension(serverExtensions));
    }

    @Override
    public TlsAuthentication getAuthentication()
    {
        return new TlsAuthentication()
        {
            @Override
            public void notifyServerCertificate(final TlsServerCertificate serverCertificate) throws IOException
            {
                negotiation.verifyPeer(serverCertificate.getCertificate());
            }

            @Override
            public TlsCredentials getClientCredentials(final CertificateRequest request) throws IOException
            {
                return negotiation.signer(context);
            }
        };
    }

    @Override
    public void notifyHandshakeComplete() throws IOException
    {
        super.notifyHandshakeComplete();
        negotiation.exportKeys(context);
    }
}
