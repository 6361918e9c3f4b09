package io.sipline.bench.media;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BencodeTest
{
    private static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static Object decode(final String s)
    {
        final byte[] b = ascii(s);
        return Bencode.decode(b, 0, b.length);
    }

    @Test
    void shouldEncodeDictionaryKeysSortedWithNestedValues()
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("sdp", "v=0");
        m.put("command", "offer");
        m.put("flags", List.of("trust-address", 7L));
        assertEquals("d7:command5:offer5:flagsl13:trust-addressi7ee3:sdp3:v=0e",
            new String(Bencode.encode(m), StandardCharsets.US_ASCII));
    }

    @Test
    void shouldDecodeWhatItEncodes()
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("a", -12L);
        m.put("b", List.of("x", List.of(), Map.of()));
        m.put("c", "caf\u00e9");
        final byte[] b = Bencode.encode(m);
        assertEquals(m, Bencode.decode(b, 0, b.length));
    }

    @Test
    void shouldDecodeAnRtpengineAnswerInsideALargerBuffer()
    {
        final byte[] b = ascii("XXd6:result2:ok3:sdp4:v=0\ne");
        final Object v = Bencode.decode(b, 2, b.length - 2);
        assertEquals(Map.of("result", "ok", "sdp", "v=0\n"), v);
    }

    @Test
    void shouldRejectMalformedInput()
    {
        assertThrows(IllegalArgumentException.class, () -> decode("d3:key"), "truncated dictionary");
        assertThrows(IllegalArgumentException.class, () -> decode("9:short"), "string past the end");
        assertThrows(IllegalArgumentException.class, () -> decode("i12"), "unterminated integer");
        assertThrows(IllegalArgumentException.class, () -> decode("ie"), "empty integer");
        assertThrows(IllegalArgumentException.class, () -> decode("i1x2e"), "not a digit");
        assertThrows(IllegalArgumentException.class, () -> decode("di1ei2ee"), "integer key");
        assertThrows(IllegalArgumentException.class, () -> decode("i1ei2e"), "two values");
        assertThrows(IllegalArgumentException.class, () -> decode("x"), "unknown type");
        assertThrows(IllegalArgumentException.class, () -> Bencode.encode(Map.of("k", 1.5)), "a double");
    }

    @Test
    void shouldFrameAndParseNgDatagrams()
    {
        final Map<String, Object> m = NgClient.command("ping");
        final byte[] frame = NgClient.frame("5a3f", m);
        assertEquals("5a3f d7:command4:pinge", new String(frame, StandardCharsets.US_ASCII));
        final NgClient.Frame f = NgClient.parse(frame, frame.length);
        assertEquals("5a3f", f.cookie());
        assertEquals(m, f.body());
        assertThrows(IllegalArgumentException.class, () -> NgClient.parse(ascii("nocookie"), 8));
        assertThrows(IllegalArgumentException.class, () -> NgClient.parse(ascii("c li1ee"), 7), "not a dictionary");
    }
}
