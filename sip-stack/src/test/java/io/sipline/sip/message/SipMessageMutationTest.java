package io.sipline.sip.message;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * Property: no byte sequence makes the parser, the typed views or the editor throw or loop. Valid messages from the
 * corpus are mutated at random (fixed seeds, so a failure reproduces): bytes flipped, SIP delimiters inserted,
 * ranges deleted, duplicated or cut off. Every outcome must be a {@link ParseResult}; every OK message must survive
 * reading all its headers, its Via values, and a round trip through {@link SipMessageEditor}.
 */
class SipMessageMutationTest
{
    private static final byte[] DELIMITERS = {'\r', '\n', ':', ';', ',', '"', '<', '>', '\\', ' ', '\t', '=', '[',
        ']', '@', '/', 0, (byte)0xFF, (byte)0xC3, '%', '?'};
    private static final int MUTATIONS_PER_SEED_MESSAGE = 4_000;

    static List<byte[]> seeds() throws IOException, URISyntaxException
    {
        final List<byte[]> seeds = new ArrayList<>();
        seeds.add(SipMessageParserTest.bytes(SipMessageParserTest.INVITE));
        final var url = SipMessageMutationTest.class.getResource("/corpus");
        if (null != url)
        {
            try (Stream<Path> files = Files.list(Path.of(url.toURI())))
            {
                for (final Path p : files.sorted().toList())
                {
                    seeds.add(Files.readAllBytes(p));
                }
            }
        }
        return seeds;
    }

    @Test
    void shouldNeverThrowOrHangOnMutatedMessages() throws Exception
    {
        final List<byte[]> seeds = seeds();
        assertTimeoutPreemptively(Duration.ofMinutes(3), () ->
        {
            final SipMessage m = new SipMessage();
            final SipMessageEditor editor = new SipMessageEditor();
            final ViaFlyweight via = new ViaFlyweight();
            final ByteBuf out = Unpooled.buffer(4096);
            final SplittableRandom random = new SplittableRandom(0x5EED);
            long ok = 0;
            for (final byte[] seed : seeds)
            {
                for (int n = 0; n < MUTATIONS_PER_SEED_MESSAGE; n++)
                {
                    final byte[] mutated = mutate(seed, random);
                    ok += exercise(mutated, m, editor, via, out) ? 1 : 0;
                }
            }
            assertTrue(ok > 0, "some mutations keep the message valid");
        });
    }

    @Test
    void shouldNeverThrowOnRandomBytes()
    {
        assertTimeoutPreemptively(Duration.ofMinutes(1), () ->
        {
            final SipMessage m = new SipMessage();
            final SplittableRandom random = new SplittableRandom(42);
            for (int n = 0; n < 20_000; n++)
            {
                final byte[] b = new byte[random.nextInt(0, 600)];
                for (int i = 0; i < b.length; i++)
                {
                    b[i] = random.nextInt(4) == 0 ? DELIMITERS[random.nextInt(DELIMITERS.length)] :
                        (byte)random.nextInt(32, 127);
                }
                if (b.length > 8 && random.nextBoolean())
                {
                    System.arraycopy("INVITE s".getBytes(), 0, b, 0, 8);
                }
                assertNotNull(SipMessageParser.parseDatagram(b, 0, b.length, m));
                assertNotNull(SipMessageParser.parseStream(b, 0, b.length, m));
            }
        });
    }

    private static boolean exercise(
        final byte[] bytes, final SipMessage m, final SipMessageEditor editor, final ViaFlyweight via,
        final ByteBuf out)
    {
        final ParseResult stream = SipMessageParser.parseStream(bytes, 0, bytes.length, m);
        assertNotNull(stream);
        final ParseResult result = SipMessageParser.parseDatagram(bytes, 0, bytes.length, m);
        assertNotNull(result);
        if (result != ParseResult.OK)
        {
            assertTrue(result.isError(), "a datagram is never incomplete");
            return false;
        }
        for (int i = 0; i < m.headerCount(); i++)
        {
            assertNotNull(m.headerValue(i));
            if (m.headerName(i) == HeaderName.VIA)
            {
                // The top Via is checked while parsing; the others only when read.
                final boolean valid = null == m.via(i, via).error();
                assertTrue(valid || i != m.topVia());
            }
        }
        m.callId();
        m.fromTag();
        m.toTag();
        m.topViaBranch();
        m.requestUri();
        m.reasonPhrase();
        out.clear();
        editor.wrap(m);
        if (m.isRequest())
        {
            editor.pushVia("SIP/2.0/UDP 127.0.0.1;branch=z9hG4bKm").removeTopRoute().maxForwards(10);
        }
        else
        {
            editor.removeTopVia();
        }
        editor.writeTo(out);
        final byte[] again = new byte[out.readableBytes()];
        out.getBytes(0, again);
        final SipMessage m2 = new SipMessage();
        final ParseResult r2 = SipMessageParser.parseDatagram(again, 0, again.length, m2);
        // Removing the top Via of a response legitimately leaves no Via, or makes a second (unchecked, possibly
        // mutated) Via the top one.
        assertFalse(r2 != ParseResult.OK
            && (m.isRequest() || r2 != ParseResult.MISSING_VIA && r2 != ParseResult.BAD_VIA),
            () -> "edited message no longer parses: " + r2 + "\n" + new String(again));
        return true;
    }

    private static byte[] mutate(final byte[] seed, final SplittableRandom random)
    {
        byte[] b = seed.clone();
        final int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits && b.length > 0; e++)
        {
            final int at = random.nextInt(b.length);
            switch (random.nextInt(6))
            {
                case 0 -> b[at] = (byte)random.nextInt(256);
                case 1 -> b[at] = DELIMITERS[random.nextInt(DELIMITERS.length)];
                case 2 ->
                {
                    final byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = DELIMITERS[random.nextInt(DELIMITERS.length)];
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                }
                case 3 ->
                {
                    final int len = Math.min(b.length - at, 1 + random.nextInt(16));
                    final byte[] c = new byte[b.length - len];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + len, c, at, b.length - at - len);
                    b = c;
                }
                case 4 ->
                {
                    final int len = Math.min(b.length - at, 1 + random.nextInt(40));
                    final byte[] c = new byte[b.length + len];
                    System.arraycopy(b, 0, c, 0, at + len);
                    System.arraycopy(b, at, c, at + len, b.length - at);
                    b = c;
                }
                default -> b = java.util.Arrays.copyOf(b, at);
            }
        }
        return b;
    }
}
