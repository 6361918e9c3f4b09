package io.sipline.media.service;

import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.relay.RelayDrop;
import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.sdp.SessionDescription;
import io.sipline.media.srtp.SdesCryptoAttribute;
import io.sipline.media.srtp.SrtpCryptoSuite;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

import static io.sipline.media.service.TestPhone.rtcp;
import static io.sipline.media.service.TestPhone.rtp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The relay's SRTP side against libsrtp: phone A protects and unprotects with libsrtp 2 (keys from its own
 * {@code a=crypto} and the relay's answer), phone B speaks plain RTP. RTP and RTCP go both ways and must arrive
 * byte for byte: what libsrtp protected the relay unprotects, and what the relay protected libsrtp unprotects.
 */
@Timeout(120)
class LibsrtpRelayTest
{
    private static final HexFormat HEX = HexFormat.of();
    private static final int SSRC_A = 0x1234_5678;
    private static final int SSRC_B = 0x0BAD_CAFE;

    @ParameterizedTest
    @EnumSource(value = SrtpCryptoSuite.class,
        names = {"AES_CM_128_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_32", "AES_256_CM_HMAC_SHA1_80"})
    void shouldRelayBetweenLibsrtpAndPlainRtp(final SrtpCryptoSuite suite) throws Exception
    {
        try (LibsrtpOracle oracle = LibsrtpOracle.start();
            RelayMediaService media = RelayMediaService.start(new MediaRelaySettings(44000, 44999,
                InetAddress.getLoopbackAddress(), null, 1, 0));
            TestPhone phoneA = new TestPhone();
            TestPhone phoneB = new TestPhone())
        {
            final SdesCryptoAttribute keyOfA = SdesCryptoAttribute.generate(1, suite, new SecureRandom());
            final String sent = oracle.command("new 0 " + suite + " send " + hex(keyOfA));
            Assumptions.assumeFalse(sent.startsWith("unsupported"), "this libsrtp2 lacks " + suite);
            assertEquals("ok", sent);
            final MediaAnchor anchor = media.anchor("v=0\r\no=a 1 1 IN IP4 127.0.0.1\r\ns=-\r\n" +
                "c=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio " + phoneA.port() + " RTP/SAVP 8\r\na=rtcp-mux\r\n" +
                "a=crypto:" + keyOfA.format() + "\r\n", MediaProfile.RTP_AVP, null);
            final int legB = SessionDescription.parse(anchor.offer()).media().get(0).port();
            final MediaDescription toA = SessionDescription.parse(anchor.answer("v=0\r\no=b 1 1 IN IP4 127.0.0.1\r\n" +
                "s=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio " + phoneB.port() + " RTP/AVP 8\r\na=rtcp-mux\r\n"))
                .media().get(0);
            final SdesCryptoAttribute keyOfRelay = SdesCryptoAttribute.parse(toA.attribute("crypto"));
            assertEquals(suite, keyOfRelay.suite());
            assertEquals("ok", oracle.command("new 1 " + suite + " recv " + hex(keyOfRelay)));
            final int legA = toA.port();

            for (int i = 1; i <= 300; i++)
            {
                final boolean control = 0 == i % 25;
                final byte[] plain = control ? rtcp(SSRC_A) : rtp(8, i, SSRC_A, 160);
                final int length = control ? 8 : 172;
                final String kind = control ? "rtcp" : "rtp";
                final byte[] srtp = HEX.parseHex(oracle.command(kind + " 0 " + HEX.formatHex(plain, 0, length))
                    .substring(3));
                phoneA.send(srtp, srtp.length, legA);
                assertArrayEquals(Arrays.copyOf(plain, length), phoneB.receive(3000), "A's " + kind + " " + i);

                final byte[] back = control ? rtcp(SSRC_B) : rtp(8, 7000 + i, SSRC_B, 160);
                phoneB.send(back, length, legB);
                final byte[] atA = phoneA.receive(3000);
                assertNotNull(atA, "B's " + kind + " " + i + " reaches A");
                assertEquals("ok " + HEX.formatHex(back, 0, length), oracle.command(kind + " 1 " + HEX.formatHex(atA)),
                    "libsrtp unprotects B's " + kind + " " + i + " as relayed");
            }
            // The media thread counts a packet after its send returns, which can be after the phone received it.
            TestPhone.await(() -> media.relay().relayed() >= 600, "600 packets counted as relayed");
            for (int reason = 0; reason < RelayDrop.COUNT; reason++)
            {
                assertEquals(0, media.relay().drops(reason), RelayDrop.name(reason));
            }
            anchor.end();
        }
    }

    private static String hex(final SdesCryptoAttribute key)
    {
        final byte[] keyAndSalt = new byte[key.masterKey(0).length + key.masterSalt(0).length];
        System.arraycopy(key.masterKey(0), 0, keyAndSalt, 0, key.masterKey(0).length);
        System.arraycopy(key.masterSalt(0), 0, keyAndSalt, key.masterKey(0).length, key.masterSalt(0).length);
        assertEquals(keyAndSalt.length, Base64.getDecoder().decode(key.format().split("inline:")[1].split("\\|")[0])
            .length);
        return HEX.formatHex(keyAndSalt);
    }
}
