package io.sipline.sip.message;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sipline.sip.message.oracle.JainSipOracle.Fixture;
import org.junit.jupiter.api.Test;

/**
 * A message read back from a {@link ParsedCopy} answers every accessor of {@link SipMessage} as a fresh parse of the
 * same bytes does: every RFC 4475 and RFC 5118 torture message and the captured corpus, parsed as a datagram and as
 * a stream message inside a larger buffer (positions moved), through a pooled direct buffer and a heap buffer, into
 * one reused message whose Strings were cached from the message before. The accessors are found by reflection, so
 * one added to {@link SipMessage} is compared too. That a copy allocates nothing is measured by
 * {@code io.sipline.jmh.HandoffBenchmark} ({@code -prof gc}).
 */
class ParsedCopyTest
{
    /** Not compared: the arrival time is the caller's ({@link #shouldLeaveTheArrivalTimeToTheCaller}). */
    private static final Set<String> NOT_COMPARED = Set.of("copy", "buffer", "receivedAtNanos", "hashCode");
    private static final byte[] PREFIX = "\r\nINVITE sip:earlier SIP/2.0\r\n".getBytes();
    private static final byte[] SUFFIX = "OPTIONS sip:next SIP/2.0\r\n".getBytes();
    /**
     * Direct buffers the leak detector does not track: at the tests' paranoid level a tracked buffer records a stack
     * trace on every access, and a copy is hundreds of them. Each buffer is released all the same.
     */
    private static final UnpooledByteBufAllocator DIRECT = new UnpooledByteBufAllocator(true, true);

    private final SipMessage reader = new SipMessage();
    private final SipMessage owner = new SipMessage();
    private final SipMessage fresh = new SipMessage();

    static List<Fixture> fixtures()
    {
        return Stream.of("rfc4475", "rfc5118", "corpus").flatMap(d -> Fixture.load(d).stream()).toList();
    }

    @Test
    void shouldAnswerLikeAFreshParseOfEachDatagram()
    {
        int ok = 0;
        for (final Fixture f : fixtures())
        {
            final byte[] b = f.bytes();
            SipMessageParser.parseDatagram(b, 0, b.length, reader);
            ok += reader.result() == ParseResult.OK ? 1 : 0;
            for (final ByteBuf buf : new ByteBuf[] {DIRECT.directBuffer(16), DIRECT.heapBuffer()})
            {
                try
                {
                    assertEquals(ParsedCopy.size(reader), copy(reader, buf), f.name());
                    SipMessageParser.parseDatagram(b, 0, b.length, fresh);
                    assertEquals(fresh.result(), ParsedCopy.read(buf, owner), f.name());
                    assertSameAnswers(f.name(), fresh, owner);
                }
                finally
                {
                    buf.release();
                }
            }
        }
        assertTrue(ok > 50, "most fixtures parse: " + ok);
    }

    @Test
    void shouldAnswerLikeAFreshParseOfEachStreamMessageInsideItsBuffer()
    {
        for (final Fixture f : fixtures())
        {
            final byte[] framed = new byte[PREFIX.length + f.bytes().length + SUFFIX.length];
            System.arraycopy(PREFIX, 0, framed, 0, PREFIX.length);
            System.arraycopy(f.bytes(), 0, framed, PREFIX.length, f.bytes().length);
            System.arraycopy(SUFFIX, 0, framed, PREFIX.length + f.bytes().length, SUFFIX.length);
            // inside the buffer, after an earlier message's line, from a CRLF keep-alive the parser skips
            final int at = PREFIX.length - 2;
            SipMessageParser.parseStream(framed, at, framed.length - at, reader);
            final ByteBuf buf = DIRECT.directBuffer(16);
            try
            {
                copy(reader, buf);
                final byte[] region = Arrays.copyOfRange(framed, at, framed.length);
                SipMessageParser.parseStream(region, 0, region.length, fresh);
                assertEquals(fresh.result(), ParsedCopy.read(buf, owner), f.name());
                assertSameAnswers(f.name() + " (stream)", fresh, owner);
            }
            finally
            {
                buf.release();
            }
        }
    }

    @Test
    void shouldLeaveTheArrivalTimeToTheCaller()
    {
        final byte[] b = SipMessageParserTest.bytes(SipMessageParserTest.INVITE);
        SipMessageParser.parseDatagram(b, 0, b.length, reader);
        reader.receivedAtNanos(1_000L);
        owner.receivedAtNanos(2_000L);
        final ByteBuf buf = DIRECT.heapBuffer();
        try
        {
            copy(reader, buf);
            ParsedCopy.read(buf, owner);
            assertEquals(2_000L, owner.receivedAtNanos(), "as a parse leaves it: the caller sets it");
        }
        finally
        {
            buf.release();
        }
    }

    @Test
    void shouldRefuseABufferThatCarriesNoParse()
    {
        final byte[] b = SipMessageParserTest.bytes(SipMessageParserTest.INVITE);
        final ByteBuf raw = Unpooled.wrappedBuffer(b);
        final ByteBuf empty = DIRECT.heapBuffer();
        try
        {
            assertThrows(IllegalArgumentException.class, () -> ParsedCopy.read(raw, owner), "the bytes alone");
            assertThrows(IllegalArgumentException.class, () -> ParsedCopy.read(empty, owner), "nothing");
        }
        finally
        {
            raw.release();
            empty.release();
        }
    }

    /** Writes the reader's copy; returns the bytes written. */
    private static int copy(final SipMessage m, final ByteBuf buf)
    {
        final int before = buf.writerIndex();
        ParsedCopy.write(m, buf);
        return buf.writerIndex() - before;
    }

    /**
     * Every public accessor of {@link SipMessage}: without arguments, per header entry, per known header name, and the
     * views it wraps; each called on both messages in the same order (the owner's caches fill as they would).
     */
    private static void assertSameAnswers(final String name, final SipMessage expected, final SipMessage actual)
    {
        assertArrayEquals(Arrays.copyOfRange(expected.buffer(), expected.offset(), expected.offset() +
            expected.length()), Arrays.copyOfRange(actual.buffer(), actual.offset(), actual.offset() +
            actual.length()), name + ": bytes");
        int compared = 0;
        for (final Method method : accessors())
        {
            final Class<?>[] params = method.getParameterTypes();
            if (0 == params.length)
            {
                assertEquals(call(method, expected), call(method, actual), name + ": " + method.getName());
                compared++;
            }
            else if (params[0] == int.class)
            {
                for (int i = 0; i < expected.headerCount(); i++)
                {
                    assertEquals(call(method, expected, i), call(method, actual, i),
                        name + ": " + method.getName() + "(" + i + ")");
                }
                compared++;
            }
            else if (params[0] == HeaderName.class)
            {
                for (final HeaderName h : HeaderName.values())
                {
                    assertEquals(call(method, expected, h), call(method, actual, h),
                        name + ": " + method.getName() + "(" + h + ")");
                }
                compared++;
            }
            else if (params[0] == CharSequence.class)
            {
                for (int i = 0; i < expected.headerCount(); i++)
                {
                    final String written = expected.headerNameAsWritten(i);
                    assertEquals(call(method, expected, written), call(method, actual, written),
                        name + ": " + method.getName() + "(" + written + ")");
                }
                compared++;
            }
        }
        assertTrue(compared > 40, name + ": accessors compared " + compared);
        assertSameViews(name, expected, actual);
    }

    /** The views wrapped over the spans, and the accessors with two arguments. */
    private static void assertSameViews(final String name, final SipMessage expected, final SipMessage actual)
    {
        final SipUriFlyweight uri = new SipUriFlyweight();
        assertEquals(expected.requestUri(uri), actual.requestUri(uri), name + ": requestUri(view)");
        final MediaTypeFlyweight type = new MediaTypeFlyweight();
        assertEquals(expected.contentType(type), actual.contentType(type), name + ": contentType(view)");
        final NameAddrFlyweight address = new NameAddrFlyweight();
        final ViaFlyweight via = new ViaFlyweight();
        for (int i = 0; i < expected.headerCount(); i++)
        {
            assertEquals(expected.address(i, address), actual.address(i, address), name + ": address(" + i + ")");
            if (expected.headerName(i) == HeaderName.VIA)
            {
                assertEquals(expected.via(i, via).error(), actual.via(i, via).error(), name + ": via(" + i + ")");
            }
            for (final HeaderName h : HeaderName.values())
            {
                assertEquals(expected.nextHeader(h, i), actual.nextHeader(h, i), name + ": nextHeader");
                assertEquals(expected.containsToken(h, "timer"), actual.containsToken(h, "timer"), name);
            }
        }
    }

    private static List<Method> accessors()
    {
        final List<Method> methods = new ArrayList<>();
        for (final Method m : SipMessage.class.getDeclaredMethods())
        {
            final int mod = m.getModifiers();
            if (Modifier.isPublic(mod) && !Modifier.isStatic(mod) && m.getReturnType() != void.class
                && !NOT_COMPARED.contains(m.getName()) && m.getParameterCount() <= 1)
            {
                methods.add(m);
            }
        }
        methods.sort(Comparator.comparing(Method::toString)); // the same order on both messages
        return methods;
    }

    /** The accessor's answer, or what it threw (a message that failed to parse may refuse some): compared alike. */
    private static Object call(final Method method, final SipMessage m, final Object... args)
    {
        try
        {
            return method.invoke(m, args);
        }
        catch (final InvocationTargetException e)
        {
            return "threw " + e.getCause();
        }
        catch (final IllegalAccessException e)
        {
            throw new AssertionError(method + " on " + m, e);
        }
    }
}
