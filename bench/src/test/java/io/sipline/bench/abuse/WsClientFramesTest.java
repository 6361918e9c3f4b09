package io.sipline.bench.abuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The attacks' client frames against the examples of RFC 6455 §5.7 and the length forms of §5.2. */
class WsClientFramesTest
{
    private static final byte[] KEY = {0x37, (byte)0xFA, 0x21, 0x3D};

    @Test
    void shouldEncodeTheMaskedHelloOfRfc6455Section57()
    {
        final byte[] payload = "Hello".getBytes(StandardCharsets.US_ASCII);
        WsClientFrames.mask(payload, KEY, 0);
        final byte[] header = WsClientFrames.header(true, WsClientFrames.TEXT, payload.length, KEY);
        final byte[] frame = new byte[header.length + payload.length];
        System.arraycopy(header, 0, frame, 0, header.length);
        System.arraycopy(payload, 0, frame, header.length, payload.length);
        assertArrayEquals(new byte[] {(byte)0x81, (byte)0x85, 0x37, (byte)0xFA, 0x21, 0x3D, 0x7F, (byte)0x9F, 0x4D,
            0x51, 0x58}, frame);
    }

    @Test
    void shouldMaskFromAnyPositionOfThePayload()
    {
        final byte[] whole = "Hello".getBytes(StandardCharsets.US_ASCII);
        WsClientFrames.mask(whole, KEY, 0);
        final byte[] tail = "llo".getBytes(StandardCharsets.US_ASCII);
        WsClientFrames.mask(tail, KEY, 2);
        assertArrayEquals(new byte[] {whole[2], whole[3], whole[4]}, tail);
    }

    @Test
    void shouldUseTheSixteenAndSixtyFourBitLengthForms()
    {
        final byte[] mid = WsClientFrames.header(false, WsClientFrames.CONTINUATION, 4_096, KEY);
        assertArrayEquals(new byte[] {0x00, (byte)(0x80 | 126), 0x10, 0x00, 0x37, (byte)0xFA, 0x21, 0x3D}, mid);
        final byte[] huge = WsClientFrames.header(true, WsClientFrames.TEXT, 10L * 1024 * 1024, KEY);
        assertEquals(14, huge.length);
        assertEquals(0x80 | 127, huge[1] & 0xFF);
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, (byte)0xA0, 0, 0}, java.util.Arrays.copyOfRange(huge, 2, 10));
    }

    @Test
    void shouldOfferTheSipSubprotocolInAVersion13Upgrade()
    {
        final String request = new String(WsClientFrames.upgrade(), StandardCharsets.US_ASCII);
        assertTrue(request.startsWith("GET / HTTP/1.1\r\n"));
        assertTrue(request.contains("Sec-WebSocket-Protocol: sip\r\n"));
        assertTrue(request.contains("Sec-WebSocket-Version: 13\r\n"));
        assertTrue(request.endsWith("\r\n\r\n"));
    }
}
