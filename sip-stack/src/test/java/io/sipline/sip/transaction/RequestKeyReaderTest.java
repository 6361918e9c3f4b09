package io.sipline.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.message.oracle.JainSipOracle.Fixture;
import org.junit.jupiter.api.Test;

/**
 * {@link RequestKeyReader} against {@link SipMessageParser}: on every message of the RFC 4475 and RFC 5118 archives and
 * of the corpus, on each request of them changed in the ways a quick read could get wrong (folded, compact, several
 * Via values on a line, duplicated CSeq, bare LFs, ...) and on random byte changes, the quick read answers what the
 * parser reads, or leaves the request to the parser. A quick answer on a request the parser refuses is allowed only
 * for a fault the reader does not look at (the Request-URI's grammar, another header), never one in the request line,
 * the top Via or the CSeq.
 */
class RequestKeyReaderTest
{
    /** Faults of what the quick read does not read: the rest of the request is its writer's. */
    private static final Set<ParseResult> NOT_READ = EnumSet.of(ParseResult.BAD_REQUEST_URI, ParseResult.BAD_FROM,
        ParseResult.BAD_TO, ParseResult.MISSING_FROM, ParseResult.MISSING_TO, ParseResult.MISSING_CALL_ID,
        ParseResult.BAD_CALL_ID, ParseResult.BAD_CONTACT, ParseResult.BAD_MAX_FORWARDS, ParseResult.BAD_CONTENT_LENGTH,
        ParseResult.BODY_TOO_SHORT, ParseResult.BAD_EXPIRES, ParseResult.DUPLICATE_HEADER,
        ParseResult.TOO_MANY_HEADERS, ParseResult.CONTROL_CHARACTER, ParseResult.UNTERMINATED_QUOTE,
        ParseResult.UNTERMINATED_ANGLE);

    private static final Pattern CSEQ_LINE = Pattern.compile("(?is)^cseq[ \t]*:.*");
    private static final Pattern VIA_LINE = Pattern.compile("(?is)^(via|v)[ \t]*:.*");

    private final RequestKeyReader reader = new RequestKeyReader(new SipMessage());
    private final SipMessage parsed = new SipMessage();
    private int quick;
    private int checked;

    /** A request as the container writes one: our Via on top, the proxied one below, a body. */
    private static String written(final String method, final String cseqMethod)
    {
        final String sdp = "v=0\r\no=- 1 1 IN IP4 198.51.100.1\r\ns=-\r\nc=IN IP4 198.51.100.1\r\nt=0 0\r\n"
            + "m=audio 4000 RTP/AVP 0\r\n";
        return method + " sip:carol@192.0.2.30:5060;transport=udp SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 198.51.100.1:5060;branch=z9hG4bK-s1-0a1b2c3d;rport\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.10:5060;received=192.0.2.10;branch=z9hG4bKPj6a1f;rport=5060\r\n"
            + "Max-Forwards: 69\r\n"
            + "From: \"Alice\" <sip:alice@example.com>;tag=a1b2\r\n"
            + "To: <sip:carol@example.com>\r\n"
            + "Call-ID: 1-2-3@198.51.100.1\r\n"
            + "CSeq: 102 " + cseqMethod + "\r\n"
            + "Contact: <sip:b2bua@198.51.100.1:5060>\r\n"
            + "Content-Type: application/sdp\r\n"
            + "Content-Length: " + sdp.length() + "\r\n\r\n" + sdp;
    }

    @Test
    void shouldReadTheRequestsTheContainerWritesWithoutTheParser()
    {
        for (final String method : List.of("INVITE", "BYE", "CANCEL", "OPTIONS", "INFO", "MESSAGE", "FOO"))
        {
            assertQuick(written(method, method));
            assertQuick(TransactionHarness.outgoing(method, "z9hG4bK" + method));
        }
        // What RFC 3261 lets a writer vary on the lines the reader reads: case, the compact form, blanks, bare LFs.
        final String plain = TransactionHarness.outgoing("INVITE", "z9hG4bKplain");
        assertQuick(plain.replace("Via:", "v:"));
        assertQuick(plain.replace("Via:", "VIA :").replace("CSeq:", "cseq\t:"));
        assertQuick(plain.replace("CSeq: 7 INVITE", "CSeq:   7 \t INVITE  "));
        assertQuick(plain.replace("\r\n", "\n"));
        assertQuick(plain.replace("SIP/2.0\r\n", "sip/2.0\r\n"));
        assertQuick(plain.replace(";branch=z9hG4bKplain", ";branch=nocookie"));
        assertQuick(plain.replace(";branch=z9hG4bKplain", ""));
    }

    @Test
    void shouldLeaveToTheParserWhatItDoesNotReadAsTheParserDoes()
    {
        final String plain = TransactionHarness.outgoing("INVITE", "z9hG4bKplain");
        final String via = "Via: SIP/2.0/UDP 198.51.100.1:5060;branch=z9hG4bKplain;rport";
        for (final String changed : List.of(
            plain.replace(via, via + ", SIP/2.0/UDP 192.0.2.1;branch=z9hG4bKsecond"), // §7.3.1: two values, one line
            plain.replace(via, via + ";x=\"a b\""),
            plain.replace("SIP/2.0/UDP 198", "SIP/2.0/UDP\r\n 198"), // folded
            plain.replace("CSeq: 7 INVITE", "CSeq: 7\r\n\tINVITE"),
            plain.replace("Max-Forwards: 70", "Max-Forwards: 70\r\n  ; folded"),
            "\r\n" + plain,
            plain.replace("CSeq: 7 INVITE\r\n", "CSeq: 7 INVITE\r\nCSeq: 8 INVITE\r\n"),
            plain.replace("CSeq: 7 INVITE", "CSeq: 7 invite"),
            plain.replace("CSeq: 7 INVITE", "CSeq: 2147483648 INVITE"),
            plain.replace("CSeq: 7 INVITE", "CSeq: 7INVITE"),
            plain.replace("SIP/2.0\r\n", "SIP/2.1\r\n"),
            plain.replace("INVITE sip:", "INVITE  sip:"),
            plain.replace("\r\n\r\n", "\r\n"),
            plain.replace("Route:", "Route :x\r\nBroken\r\nRoute:"),
            plain.replace(";rport", ";rport\u0001"),
            plain.replace("CSeq: 7 INVITE", "CSeq: 7 INVITE\r"),
            TransactionHarness.response(200, "z9hG4bKplain", "INVITE")))
        {
            final byte[] bytes = changed.getBytes(StandardCharsets.ISO_8859_1);
            check("changed", bytes);
            assertFalse(reader.quick(), changed);
        }
    }

    @Test
    void shouldAnswerAsTheParserOnEveryTortureAndCorpusMessageAndTheirChanges()
    {
        final List<byte[]> requests = new ArrayList<>();
        for (final String archive : List.of("rfc4475", "rfc5118", "corpus"))
        {
            for (final Fixture f : Fixture.load(archive))
            {
                check(archive + "/" + f.name(), f.bytes());
                if (SipMessageParser.parseDatagram(f.bytes(), 0, f.bytes().length, parsed) == ParseResult.OK
                    && parsed.isRequest())
                {
                    requests.add(f.bytes());
                }
            }
        }
        requests.add(written("INVITE", "INVITE").getBytes(StandardCharsets.ISO_8859_1));
        requests.add(written("BYE", "BYE").getBytes(StandardCharsets.ISO_8859_1));
        for (final byte[] request : requests)
        {
            for (final String changed : changes(new String(request, StandardCharsets.ISO_8859_1)))
            {
                check("changed", changed.getBytes(StandardCharsets.ISO_8859_1));
            }
        }
        assertTrue(requests.size() > 60, "requests " + requests.size());
        assertTrue(quick > checked / 4, quick + " quick of " + checked);
    }

    @Test
    void shouldAnswerAsTheParserWhateverByteChanges()
    {
        final Random random = new Random(3261);
        final byte[] interesting = " \t\r\n,:;=\"<>\u0001\u007fav9z/".getBytes(StandardCharsets.ISO_8859_1);
        final List<String> sources = List.of(written("INVITE", "INVITE"), written("BYE", "BYE"),
            TransactionHarness.outgoing("OPTIONS", "z9hG4bKo"));
        for (final String source : sources)
        {
            final byte[] original = source.getBytes(StandardCharsets.ISO_8859_1);
            final int head = source.indexOf("\r\n\r\n") + 4;
            for (int n = 0; n < 3000; n++)
            {
                final byte[] b = original.clone();
                final int changes = 1 + random.nextInt(2);
                for (int c = 0; c < changes; c++)
                {
                    b[random.nextInt(head)] = interesting[random.nextInt(interesting.length)];
                }
                check("random", b);
            }
            for (int cut = 0; cut < original.length; cut += 7)
            {
                check("cut", java.util.Arrays.copyOf(original, cut));
            }
        }
        assertTrue(quick > checked / 10, quick + " quick of " + checked);
    }

    @Test
    void shouldFindTheFirstLfAsAPlainScanDoes()
    {
        final Random random = new Random(10);
        final byte[] others = {'\r', 0x0B, 0x09, 0x1A, (byte)0xFF, 0, 'a', (byte)0x8A};
        for (int n = 0; n < 20_000; n++)
        {
            final byte[] b = new byte[random.nextInt(40)];
            for (int i = 0; i < b.length; i++)
            {
                b[i] = 0 == random.nextInt(12) ? (byte)'\n' : others[random.nextInt(others.length)];
            }
            final int from = random.nextInt(b.length + 1);
            final int end = from + random.nextInt(b.length - from + 1);
            int expected = -1;
            for (int i = from; i < end && expected < 0; i++)
            {
                expected = b[i] == '\n' ? i : -1;
            }
            assertEquals(expected, RequestKeyReader.indexOfLf(b, from, end));
        }
    }

    private static List<String> changes(final String request)
    {
        final List<String> out = new ArrayList<>();
        out.add(request.replace("\r\n", "\n"));
        out.add("\r\n" + request);
        out.add(request.replaceFirst("(?m)^Via:", "v:"));
        out.add(request.replaceFirst("(?m)^Via:", "VIA :"));
        out.add(request.replaceFirst("(?m)^(Via:[^\r\n]*)", "$1, SIP/2.0/TCP other.example.com;branch=z9hG4bKo"));
        out.add(request.replaceFirst("(?m)^(Via:[^\r\n]*)", "$1;x=\"q,r\""));
        out.add(request.replaceFirst("(?m)^(Via: SIP/2.0/[A-Z]+)", "$1\r\n "));
        out.add(request.replaceFirst("(?m)^(CSeq:[^\r\n]*)", "$1\r\nCSeq: 1 OPTIONS"));
        out.add(request.replaceFirst("(?m)^(CSeq: *[0-9]+)", "$1\r\n "));
        out.add(request.replaceFirst("(?m)^CSeq: *[0-9]+", "CSeq: 4294967296"));
        out.add(request.replaceFirst("(?m)^CSeq:", "cseq  :"));
        out.add(request.replaceFirst("(?m)^(CSeq:[^\r\n]*)", "$1X"));
        out.add(request.replaceFirst("branch=z9hG4bK", "branch=Z9hG4bK"));
        out.add(request.replaceFirst("(?m)^Via:[^\r\n]*\r?\n", ""));
        out.add(request.replaceFirst("(?m)^CSeq:[^\r\n]*\r?\n", ""));
        out.add(request.replaceFirst(" SIP/2.0\r?\n", " SIP/2.0 \r\n"));
        out.add(request.replaceFirst("(?m)^(Via:[^\r\n]*)", "$1\u0001"));
        return out;
    }

    private void assertQuick(final String request)
    {
        check("plain", request.getBytes(StandardCharsets.ISO_8859_1));
        assertTrue(reader.quick(), request);
    }

    /** The reader, from a heap and from a direct buffer, against the parser on {@code bytes}. */
    private void check(final String name, final byte[] bytes)
    {
        checked++;
        final ByteBuf direct = Unpooled.directBuffer(bytes.length + 1);
        try
        {
            direct.writeBytes(bytes);
            compare(name, bytes, reader.read(direct));
            final boolean wasQuick = reader.quick();
            compare(name, bytes, reader.read(Unpooled.wrappedBuffer(bytes)));
            assertEquals(wasQuick, reader.quick(), name);
            quick += wasQuick ? 1 : 0;
        }
        finally
        {
            direct.release();
        }
    }

    private void compare(final String name, final byte[] bytes, final boolean read)
    {
        final SipMessage m = parsed;
        final ParseResult result = SipMessageParser.parseDatagram(bytes, 0, bytes.length, m);
        final boolean usable = result == ParseResult.OK && m.isRequest();
        final String text = name + ": " + new String(bytes, StandardCharsets.ISO_8859_1);
        if (!usable)
        {
            if (reader.quick())
            {
                assertTrue(read, text);
                assertTrue(NOT_READ.contains(result), result + " " + text);
                assertTrue(faultOutsideReadLines(bytes, m), result + " at " + m.errorOffset() + " " + text);
            }
            else
            {
                assertFalse(read, text);
            }
            return;
        }
        assertTrue(read, text);
        final byte[] b = reader.buffer();
        assertEquals(m.method(), reader.method(), text);
        assertEquals(Ascii.string(m.buffer(), m.methodStart(), m.methodEnd()),
            Ascii.string(b, reader.methodStart(), reader.methodEnd()), text);
        assertEquals(m.cseqMethod(), reader.cseqMethod(), text);
        assertEquals(m.cseqNumber(), reader.cseqNumber(), text);
        assertEquals(m.topViaHasMagicCookie(), reader.magicCookie(), text);
        assertEquals(m.topViaBranchStart() < 0, reader.branchStart() < 0, text);
        if (m.topViaBranchStart() >= 0)
        {
            assertEquals(Ascii.string(m.buffer(), m.topViaBranchStart(), m.topViaBranchEnd()),
                Ascii.string(b, reader.branchStart(), reader.branchEnd()), text);
        }
    }

    /**
     * Whether the parser's fault lies where the quick read does not look: not in the request line's method or
     * version, not on the first Via line, not on a CSeq line, and the request has one CSeq line.
     */
    private static boolean faultOutsideReadLines(final byte[] bytes, final SipMessage m)
    {
        final String text = new String(bytes, StandardCharsets.ISO_8859_1);
        final int headEnd = text.indexOf("\n\r\n") >= 0 ? text.indexOf("\n\r\n") : text.indexOf("\n\n");
        final String[] lines = text.substring(0, headEnd < 0 ? text.length() : headEnd + 1).split("\n", -1);
        int cseqLines = 0;
        boolean firstVia = true;
        int at = 0;
        for (int i = 0; i < lines.length; i++)
        {
            final String line = lines[i];
            final int lineEnd = at + line.length() + 1;
            final boolean inLine = m.errorOffset() >= at && m.errorOffset() < lineEnd;
            final boolean isVia = VIA_LINE.matcher(line).matches();
            if (CSEQ_LINE.matcher(line).matches())
            {
                cseqLines++;
                if (inLine)
                {
                    return false;
                }
            }
            if (isVia && firstVia && inLine)
            {
                return false;
            }
            firstVia &= !isVia;
            if (0 == i && inLine && m.result() != ParseResult.BAD_REQUEST_URI)
            {
                return false;
            }
            at = lineEnd;
        }
        return 1 == cseqLines;
    }

    private static boolean read(final RequestKeyReader r, final String request)
    {
        final ByteBuf b = Unpooled.copiedBuffer(request, StandardCharsets.US_ASCII);
        try
        {
            return r.read(b);
        }
        finally
        {
            b.release();
        }
    }

    @Test
    void shouldLetABurstsLargeCopyGoAtTheFirstTrimWithNoLargeRequestSinceTheLast()
    {
        final RequestKeyReader r = new RequestKeyReader(new SipMessage());
        final String plain = TransactionHarness.outgoing("INVITE", "z9hG4bKtrim");
        final String large = plain.replace("Max-Forwards:", "X-Pad: " + "x".repeat(20_000) + "\r\nMax-Forwards:");
        assertTrue(read(r, large));
        final byte[] copy = r.buffer();
        assertTrue(copy.length > SipMessage.KEPT_OWN_BYTES);
        r.trim();
        assertSame(copy, r.buffer(), "a request since the last trim needed it: kept one more second");
        r.trim();
        assertEquals(2048, r.buffer().length, "no large request for a whole trim: let go");
        assertTrue(read(r, plain));
        assertEquals("z9hG4bKtrim", new String(r.buffer(), r.branchStart(), r.branchEnd() - r.branchStart(),
            StandardCharsets.US_ASCII));

        // a request of the kept size each second: its array stays (no allocation)
        final String medium = plain.replace("Max-Forwards:", "X-Pad: " + "x".repeat(8_000) + "\r\nMax-Forwards:");
        assertTrue(read(r, medium));
        final byte[] kept = r.buffer();
        for (int second = 0; second < 3; second++)
        {
            r.trim();
            r.trim();
            assertTrue(read(r, plain));
            assertSame(kept, r.buffer(), "an array up to the kept size stays");
        }
    }
}
