package io.sipline.media.dtls;

import java.io.IOException;
import java.util.Hashtable;

import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.CertificateRequest;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.ClientCertificateType;
import org.bouncycastle.tls.DefaultTlsServer;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsCredentialedSigner;
import org.bouncycastle.tls.TlsExtensionsUtils;
import org.bouncycastle.tls.TlsSRTPUtils;
import org.bouncycastle.tls.TlsUtils;

/**
 * The DTLS 1.2 server of a DTLS-SRTP leg ({@code a=setup:passive}): signs with our ECDSA certificate, requests the
 * client's certificate and checks it against the client's fingerprint (RFC 5763 §5), picks our most preferred
 * SRTP profile among the client's (RFC 5764 §4.1.2), and exports the SRTP keys when the handshake completes.
 *
 * <p>Not thread-safe; used by one handshake thread.
 */
final class SrtpDtlsServer extends DefaultTlsServer
{
    private static final int[] CIPHER_SUITES = {
        CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        CipherSuite.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
    };

    private final DtlsSrtpNegotiation negotiation;
    private final int initialResendMs;

    SrtpDtlsServer(final DtlsSrtpNegotiation negotiation, final int initialResendMs)
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
    protected TlsCredentialedSigner getECDSASignerCredentials() throws IOException
    {
        return negotiation.signer(context);
    }

    @Override
    @SuppressWarnings("rawtypes") // Bouncy Castle's extension tables are raw Hashtables.
    public void processClientExtensions(final Hashtable clientExtensions) throws IOException
    {
        super.processClientExtensions(clientExtensions);
        negotiation.choose(TlsSRTPUtils.getUseSRTPExtension(clientExtensions));
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"}) // Bouncy Castle's extension tables are raw Hashtables.
    public Hashtable getServerExtensions() throws IOException
    {
        final Hashtable extensions = TlsExtensionsUtils.ensureExtensionsInitialised(
            super.getServerExtensions());
        TlsSRTPUtils.addUseSRTPExtension(extensions, negotiation.choice());
        return extensions;
    }

    @Override
    public CertificateRequest getCertificateRequest()
    {
        return new CertificateRequest(new short[] {ClientCertificateType.ecdsa_sign, ClientCertificateType.rsa_sign},
            TlsUtils.getDefaultSupportedSignatureAlgorithms(context), null);
    }

    @Override
    public void notifyClientCertificate(final Certificate clientCertificate) throws IOException
    {
        negotiation.verifyPeer(clientCertificate);
    }

    @Override
    public void notifyHandshakeComplete() throws IOException
    {
        super.notifyHandshakeComplete();
        negotiation.exportKeys(context);
    }
}
