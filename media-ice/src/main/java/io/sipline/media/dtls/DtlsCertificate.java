package io.sipline.media.dtls;

import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.crypto.TlsCertificate;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;

/**
 * The server's DTLS identity: one ECDSA P-256 key and a self-signed certificate for it, made once for the server's
 * life and presented on every DTLS-SRTP leg, with the SHA-256 fingerprint that every offer and answer carries
 * ({@code a=fingerprint:sha-256 AB:CD:...}, RFC 8122 §5, RFC 5763 §5). A P-256 certificate is about 400 octets, so
 * the certificate flight fits a 1,200-octet path MTU without many fragments (an RSA-2048 one is twice as big).
 * Peers authenticate it by that fingerprint alone (RFC 5763 §5), not by a chain or its dates; it is valid for a
 * year from its making.
 *
 * <p>Immutable; thread-safe: every {@link DtlsEndpoint} of the server shares one.
 */
public final class DtlsCertificate
{
    private static final Duration VALIDITY = Duration.ofDays(365);

    private final byte[] der;
    private final AsymmetricKeyParameter privateKey;
    private final DtlsFingerprint fingerprint;

    private DtlsCertificate(final byte[] der, final AsymmetricKeyParameter privateKey)
    {
        this.der = der;
        this.privateKey = privateKey;
        this.fingerprint = DtlsFingerprint.of("sha-256", der);
    }

    /**
     * Makes a new key pair and self-signed certificate ({@code CN=sipline}, random 64-bit serial, ECDSA with
     * SHA-256). Call once at start-up; it takes a few milliseconds.
     *
     * @param random the source of the key and the serial.
     * @return the certificate.
     */
    public static DtlsCertificate generate(final SecureRandom random)
    {
        try
        {
            final KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), random);
            final KeyPair pair = generator.generateKeyPair();
            final X500Name name = new X500Name("CN=sipline");
            final Instant now = Instant.now();
            // Back-dated a day so that a peer whose clock is behind ours does not see it as not yet valid.
            final X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name,
                new BigInteger(64, random).add(BigInteger.ONE), Date.from(now.minus(Duration.ofDays(1))),
                Date.from(now.plus(VALIDITY)), name, pair.getPublic());
            final byte[] der = builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate()))
                .getEncoded();
            return new DtlsCertificate(der, PrivateKeyFactory.createKey(pair.getPrivate().getEncoded()));
        }
        catch (final GeneralSecurityException | OperatorCreationException | IOException e)
        {
            throw new IllegalStateException("cannot make an ECDSA P-256 certificate", e);
        }
    }

    /** @return the SHA-256 fingerprint of the certificate. */
    public DtlsFingerprint fingerprint()
    {
        return fingerprint;
    }

    /** @return the value of our {@code a=fingerprint} line: {@code sha-256 AB:CD:...}. */
    public String sdpFingerprint()
    {
        return fingerprint.sdpValue();
    }

    /** @return a copy of the certificate's DER encoding. */
    public byte[] der()
    {
        return der.clone();
    }

    AsymmetricKeyParameter privateKey()
    {
        return privateKey;
    }

    Certificate tlsCertificate(final BcTlsCrypto crypto) throws IOException
    {
        return new Certificate(new TlsCertificate[] {crypto.createCertificate(der)});
    }
}
