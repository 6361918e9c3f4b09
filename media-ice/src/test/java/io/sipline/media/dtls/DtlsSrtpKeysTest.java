package io.sipline.media.dtls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.security.SecureRandom;
import java.util.Arrays;

import io.sipline.media.srtp.SrtpCryptoSuite;
import io.sipline.media.srtp.SrtpSession;
import org.junit.jupiter.api.Test;

class DtlsSrtpKeysTest
{
    private static final DtlsFingerprint PEER = DtlsCertificate.generate(new SecureRandom()).fingerprint();

    private static byte[] counting(final int length)
    {
        final byte[] material = new byte[length];
        for (int i = 0; i < length; i++)
        {
            material[i] = (byte)i;
        }
        return material;
    }

    private static byte[] range(final int from, final int to)
    {
        return Arrays.copyOfRange(counting(64), from, to);
    }

    @Test
    void shouldCutClientKeyServerKeyClientSaltServerSaltAsRfc5764Section4Point2()
    {
        final DtlsSrtpKeys client = new DtlsSrtpKeys(DtlsRole.CLIENT, DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_80,
            counting(60), PEER);
        assertEquals(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, client.outboundPolicy().suite());
        assertArrayEquals(range(0, 16), client.outboundPolicy().masterKey());
        assertArrayEquals(range(16, 32), client.inboundPolicy().masterKey());
        assertArrayEquals(range(32, 46), client.outboundPolicy().masterSalt());
        assertArrayEquals(range(46, 60), client.inboundPolicy().masterSalt());

        final DtlsSrtpKeys server = new DtlsSrtpKeys(DtlsRole.SERVER, DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_80,
            counting(60), PEER);
        assertArrayEquals(range(16, 32), server.outboundPolicy().masterKey());
        assertArrayEquals(range(46, 60), server.outboundPolicy().masterSalt());
        assertArrayEquals(range(0, 16), server.inboundPolicy().masterKey());
        assertArrayEquals(range(32, 46), server.inboundPolicy().masterSalt());
    }

    @Test
    void shouldTakeFiftySixOctetsForAes128GcmByTheRfc5764Section4Point2Formula()
    {
        assertEquals(56, DtlsSrtpProfile.SRTP_AEAD_AES_128_GCM.keyingMaterialLength());
        assertEquals(60, DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_32.keyingMaterialLength());
        final DtlsSrtpKeys client = new DtlsSrtpKeys(DtlsRole.CLIENT, DtlsSrtpProfile.SRTP_AEAD_AES_128_GCM,
            counting(56), PEER);
        assertArrayEquals(range(32, 44), client.outboundPolicy().masterSalt());
        assertArrayEquals(range(44, 56), client.inboundPolicy().masterSalt());
        assertThrows(IllegalArgumentException.class, () -> new DtlsSrtpKeys(DtlsRole.CLIENT,
            DtlsSrtpProfile.SRTP_AEAD_AES_128_GCM, counting(60), PEER));
    }

    @Test
    void shouldLetTheServerUnprotectWhatTheClientProtects()
    {
        final byte[] material = counting(60);
        try (SrtpSession client = new DtlsSrtpKeys(DtlsRole.CLIENT, DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_80,
            material, PEER).newSession();
            SrtpSession server = new DtlsSrtpKeys(DtlsRole.SERVER, DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_80,
                material, PEER).newSession())
        {
            DtlsEndpointTest.assertSrtpFlows(client, server);
            DtlsEndpointTest.assertSrtpFlows(server, client);
        }
    }

    @Test
    void shouldMapUseSrtpIdsOfRfc5764Section4Point1Point2()
    {
        assertEquals(DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_80, DtlsSrtpProfile.fromId(0x0001));
        assertEquals(DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_32, DtlsSrtpProfile.fromId(0x0002));
        assertEquals(DtlsSrtpProfile.SRTP_AEAD_AES_128_GCM, DtlsSrtpProfile.fromId(0x0007));
        assertEquals(null, DtlsSrtpProfile.fromId(0x0005));
    }
}
