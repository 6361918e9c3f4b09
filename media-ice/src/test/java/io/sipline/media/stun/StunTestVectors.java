package io.sipline.media.stun;

/**
 * Test messages: RFC 5769 §2.1-§2.4 and RFC 8489 Appendix B.1 as corrected by erratum 6268, as hex.
 */
final class StunTestVectors
{
    /** RFC 5769 §2.1 and §2.2-2.3 short-term password. */
    static final String SHORT_TERM_PASSWORD = "VOkJxbRl1RmTxUk/WvJxBt";

    /** RFC 5769 §2.1: Binding request, SOFTWARE, PRIORITY, ICE-CONTROLLED, USERNAME, MI, FINGERPRINT. */
    static final byte[] SAMPLE_REQUEST = hex(
        "00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae"
        + "80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74"
        + "00 24 00 04 6e 00 01 ff"
        + "80 29 00 08 93 2f f9 b1 51 26 3b 36"
        + "00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20"
        + "00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2"
        + "80 28 00 04 e5 7a 3b cf");

    /** RFC 5769 §2.2: success response, XOR-MAPPED-ADDRESS 192.0.2.1:32853. */
    static final byte[] SAMPLE_IPV4_RESPONSE = hex(
        "01 01 00 3c 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae"
        + "80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20"
        + "00 20 00 08 00 01 a1 47 e1 12 a6 43"
        + "00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7"
        + "80 28 00 04 c0 7d 4c 96");

    /** RFC 5769 §2.3: success response, XOR-MAPPED-ADDRESS [2001:db8:1234:5678:11:2233:4455:6677]:32853. */
    static final byte[] SAMPLE_IPV6_RESPONSE = hex(
        "01 01 00 48 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae"
        + "80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20"
        + "00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9"
        + "00 08 00 14 a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41"
        + "80 28 00 04 c8 fb 0b 4c");

    /** RFC 5769 §2.4 username (U+30DE U+30C8 U+30EA U+30C3 U+30AF U+30B9). */
    static final String LONG_TERM_USERNAME = "\u30DE\u30C8\u30EA\u30C3\u30AF\u30B9";
    /** RFC 5769 §2.4 password before SASLprep. */
    static final String LONG_TERM_PASSWORD_RAW = "The\u00ADM\u00AAtr\u2168";
    /** RFC 5769 §2.4 password after SASLprep. */
    static final String LONG_TERM_PASSWORD = "TheMatrIX";
    /** RFC 5769 §2.4 nonce. */
    static final String LONG_TERM_NONCE = "f//499k954d6OL34oL9FSTvy64sA";
    /** RFC 5769 §2.4 and RFC 8489 B.1 realm. */
    static final String REALM = "example.org";

    /** RFC 5769 §2.4: request with long-term authentication (USERNAME, NONCE, REALM, MI; no FINGERPRINT). */
    static final byte[] SAMPLE_LONG_TERM_REQUEST = hex(
        "00 01 00 60 21 12 a4 42 78 ad 34 33 c6 ad 72 c0 29 da 41 2e"
        + "00 06 00 12 e3 83 9e e3 83 88 e3 83 aa e3 83 83 e3 82 af e3 82 b9 00 00"
        + "00 15 00 1c 66 2f 2f 34 39 39 6b 39 35 34 64 36 4f 4c 33 34 6f 4c 39 46 53 54 76 79 36 34 73 41"
        + "00 14 00 0b 65 78 61 6d 70 6c 65 2e 6f 72 67 00"
        + "00 08 00 14 f6 70 24 65 6d d6 4a 3e 02 b8 e0 71 2e 85 c9 a2 8c a8 96 66");

    /** RFC 8489 B.1 nonce. */
    static final String SHA256_NONCE = "obMatJos2AAACf//499k954d6OL34oL9FSTvy64sA";

    /**
     * RFC 8489 Appendix B.1 as corrected by erratum 6268 (length 0x90, PASSWORD-ALGORITHM SHA-256 added,
     * MESSAGE-INTEGRITY-SHA256 recomputed): USERHASH, NONCE, REALM, PASSWORD-ALGORITHM, MI-SHA256.
     */
    static final byte[] SAMPLE_SHA256_REQUEST = hex(
        "00 01 00 90 21 12 a4 42 78 ad 34 33 c6 ad 72 c0 29 da 41 2e"
        + "00 1e 00 20 4a 3c f3 8f ef 69 92 bd a9 52 c6 78 04 17 da 0f 24 81 94 15 56 9e 60 b2 05 c4 6e 41 40 7f 17 04"
        + "00 15 00 29 6f 62 4d 61 74 4a 6f 73 32 41 41 41 43 66 2f 2f 34 39 39 6b 39 35 34 64 36 4f 4c 33"
        + "34 6f 4c 39 46 53 54 76 79 36 34 73 41 00 00 00"
        + "00 14 00 0b 65 78 61 6d 70 6c 65 2e 6f 72 67 00"
        + "00 1d 00 04 00 02 00 00"
        + "00 1c 00 20 b5 c7 bf 00 5b 6c 52 a2 1c 51 c5 e8 92 f8 19 24 13 62 96 cb 92 7c 43 14 93 09 27 8c"
        + "c6 51 8e 65");

    /** Transaction id of §2.1-§2.3. */
    static final int TID_HIGH = 0xb7e7a701;
    /** Transaction id of §2.1-§2.3. */
    static final long TID_LOW = 0xbc34d686fa87dfaeL;

    private StunTestVectors()
    {
    }

    static byte[] hex(final String text)
    {
        final String digits = text.replaceAll("\\s+", "");
        final byte[] out = new byte[digits.length() / 2];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = (byte)Integer.parseInt(digits.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static String toHex(final byte[] bytes, final int offset, final int length)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++)
        {
            sb.append(String.format("%02x", bytes[offset + i] & 0xFF));
        }
        return sb.toString();
    }
}
