package io.sipline.media.dtls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;

import org.junit.jupiter.api.Test;

class DtlsCertificateTest
{
    private static final DtlsCertificate CERTIFICATE = DtlsCertificate.generate(new SecureRandom());

    @Test
    void shouldBeSelfSignedEcdsaP256SmallEnoughForOneDatagram() throws Exception
    {
        final X509Certificate x509 = (X509Certificate)CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(CERTIFICATE.der()));
        x509.verify(x509.getPublicKey());
        assertEquals("SHA256withECDSA", x509.getSigAlgName());
        final ECPublicKey key = (ECPublicKey)x509.getPublicKey();
        assertEquals(256, key.getParams().getCurve().getField().getFieldSize());
        assertEquals(x509.getSubjectX500Principal(), x509.getIssuerX500Principal());
        // The Certificate message (certificate plus 3+3+12 octets of headers) fits a 1,200-octet datagram.
        assertTrue(CERTIFICATE.der().length < 600, "certificate is " + CERTIFICATE.der().length + " octets");
    }

    @Test
    void shouldFormatSha256FingerprintForSdpAsRfc8122Section5()
    {
        final String value = CERTIFICATE.sdpFingerprint();
        assertTrue(value.matches("sha-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}"), value);
        assertEquals(value, CERTIFICATE.fingerprint().sdpValue());
    }

    @Test
    void shouldHashTheDerEncoding() throws Exception
    {
        final byte[] expected = MessageDigest.getInstance("SHA-256").digest(CERTIFICATE.der());
        assertArrayEquals(expected, CERTIFICATE.fingerprint().digest());
        assertTrue(CERTIFICATE.fingerprint().matches(CERTIFICATE.der()));
    }

    @Test
    void shouldMakeADifferentKeyEachTime()
    {
        assertNotEquals(CERTIFICATE.fingerprint(), DtlsCertificate.generate(new SecureRandom()).fingerprint());
    }

    @Test
    void shouldParseWhatItFormatsInEitherCase()
    {
        final DtlsFingerprint parsed = DtlsFingerprint.parse(CERTIFICATE.sdpFingerprint());
        assertEquals(CERTIFICATE.fingerprint(), parsed);
        assertEquals(parsed, DtlsFingerprint.parse(CERTIFICATE.sdpFingerprint().toLowerCase().replace("sha", "SHA")));
        assertTrue(parsed.matches(CERTIFICATE.der()));
    }

    @Test
    void shouldCheckWithTheHashTheSdpNames()
    {
        final DtlsFingerprint sha1 = DtlsFingerprint.of("sha-1", CERTIFICATE.der());
        assertEquals(20, sha1.digest().length);
        assertTrue(DtlsFingerprint.parse(sha1.sdpValue()).matches(CERTIFICATE.der()));
        final DtlsFingerprint sha512 = DtlsFingerprint.parse(DtlsFingerprint.of("sha-512", CERTIFICATE.der())
            .sdpValue());
        assertTrue(sha512.matches(CERTIFICATE.der()));
        assertFalse(sha512.matches(DtlsCertificate.generate(new SecureRandom()).der()));
    }

    @Test
    void shouldRefuseMalformedOrDeprecatedFingerprints()
    {
        final String hex = CERTIFICATE.fingerprint().hex();
        // RFC 8122 §5: MD5 and MD2 are no longer to be used.
        assertThrows(IllegalArgumentException.class, () -> DtlsFingerprint.parse("md5 " + hex.substring(0, 47)));
        assertThrows(IllegalArgumentException.class, () -> DtlsFingerprint.parse("sha-256 " + hex.substring(3)));
        assertThrows(IllegalArgumentException.class, () -> DtlsFingerprint.parse("sha-256 " + hex.replace(':', '-')));
        assertThrows(IllegalArgumentException.class, () -> DtlsFingerprint.parse("sha-256"));
        assertThrows(IllegalArgumentException.class, () -> DtlsFingerprint.parse("sha-256 ZZ" + hex.substring(2)));
    }
}
