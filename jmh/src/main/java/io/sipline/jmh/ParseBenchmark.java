package io.sipline.jmh;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.parser.StringMsgParser;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Nanoseconds and bytes allocated to parse one SIP message and read what the transaction layer reads on every
 * message (the top Via's branch, the Call-ID, the CSeq number and the To tag): Sipline's {@link SipMessageParser}
 * ({@link #siplineParse()}, {@link #siplineParseDirect()}, {@link #siplineParseStrings(Blackhole)}) against the
 * JAIN-SIP RI's {@link StringMsgParser} (1.3.0-91) parsing the same bytes in the same run ({@link #jainSipParse}).
 *
 * <p>The messages are resources next to this class, CRLF-terminated with a correct Content-Length:
 * {@code invite.sip}, an initial INVITE of 911 bytes that went through one proxy (13 header lines, two Vias, an
 * SDP offer of 240 bytes, no To tag yet), and {@code ringing.sip}, the 180 Ringing that answers it (616 bytes,
 * 11 header lines, To tag set, no body). {@link #setUp()} throws if the two parsers disagree on any of the four
 * values, so that a benchmark of a wrong parse cannot run.
 *
 * <pre>
 * java -jar jmh/target/benchmarks.jar ParseBenchmark -prof gc
 * </pre>
 *
 * <p>Not threadsafe; each fork's single benchmark thread owns the state, as a shard owns its messages.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ParseBenchmark
{
    /** The message to parse: the resource {@code <message>.sip} next to this class. */
    @Param({"invite", "ringing"})
    String message;

    private byte[] bytes;
    private final SipMessage sipline = new SipMessage();
    private final StringMsgParser jainParser = new StringMsgParser();
    private ByteBuf direct;

    /**
     * Loads the message, fills the direct buffer, and checks that every Sipline variant and the RI read the same
     * values from it.
     *
     * @throws IllegalStateException when a parser rejects the message or the parsers disagree.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        bytes = load(message + ".sip");
        direct = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length);
        direct.writeBytes(bytes);

        // The RI: what the values are.
        final SIPMessage ri = jainParser.parseSIPMessage(bytes, true, false, null);
        if (null == ri)
        {
            throw new IllegalStateException(message + ": the JAIN-SIP RI parsed nothing");
        }
        final String riBranch = ((Via)ri.getViaHeaders().getFirst()).getBranch();
        final String riCallId = ri.getCallId().getCallId();
        final long riCseq = ri.getCSeq().getSeqNumber();
        final String riToTag = ri.getTo().getTag();

        // Sipline from the array, read as Strings, must agree with the RI.
        check(SipMessageParser.parseDatagram(bytes, 0, bytes.length, sipline), "parseDatagram(byte[])");
        agree("top Via branch", riBranch, sipline.topViaBranch());
        agree("Call-ID", riCallId, sipline.callId());
        agree("CSeq number", riCseq, sipline.cseqNumber());
        agree("To tag", riToTag, sipline.toTag());
        if (sipline.frameLength() != bytes.length)
        {
            throw new IllegalStateException(message + ": Sipline framed " + sipline.frameLength() + " of " +
                bytes.length + " bytes; is the resource's Content-Length right?");
        }

        // The spans the span-reading benchmarks mix must denote the same values.
        agree("top Via branch span", riBranch, span(sipline, sipline.topViaBranchStart(), sipline.topViaBranchEnd()));
        agree("Call-ID span", riCallId, span(sipline, sipline.callIdStart(), sipline.callIdEnd()));
        agree("To tag span", riToTag, span(sipline, sipline.toTagStart(), sipline.toTagEnd()));
        final long fromArray = siplineParse();

        // Sipline from the direct buffer must index the same spans, and leave the buffer as it was.
        check(SipMessageParser.parseDatagram(direct, sipline), "parseDatagram(ByteBuf)");
        agree("top Via branch (direct)", riBranch, sipline.topViaBranch());
        agree("Call-ID (direct)", riCallId, sipline.callId());
        agree("CSeq number (direct)", riCseq, sipline.cseqNumber());
        agree("To tag (direct)", riToTag, sipline.toTag());
        agree("span mix (direct)", fromArray, siplineParseDirect());
        if (direct.readerIndex() != 0 || direct.readableBytes() != bytes.length)
        {
            throw new IllegalStateException(message + ": parsing moved the direct buffer's reader index");
        }
    }

    /** Releases the direct buffer to its pool. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        direct.release();
    }

    /**
     * Sipline: parse the array into the reused message, read the four values as spans (start and end offsets, the
     * CSeq number as a long). This is what the transaction layer does, and it should allocate nothing: 0 B/op.
     *
     * @return the spans and the CSeq number mixed into one value, with the parse outcome.
     */
    @Benchmark
    public long siplineParse()
    {
        final SipMessage m = sipline;
        final ParseResult result = SipMessageParser.parseDatagram(bytes, 0, bytes.length, m);
        return mix(result, m);
    }

    /**
     * Sipline from a pooled direct buffer, as the transport parses a datagram: one copy into the message's own array,
     * then the same parse and the same span reads as {@link #siplineParse()}.
     *
     * @return the spans and the CSeq number mixed into one value, with the parse outcome.
     */
    @Benchmark
    public long siplineParseDirect()
    {
        final SipMessage m = sipline;
        final ParseResult result = SipMessageParser.parseDatagram(direct, m);
        return mix(result, m);
    }

    /**
     * Sipline for a caller that wants Strings: the branch, Call-ID and To tag are created (once each) per parse,
     * what such a caller pays.
     */
    @Benchmark
    public void siplineParseStrings(final Blackhole bh)
    {
        final SipMessage m = sipline;
        bh.consume(SipMessageParser.parseDatagram(bytes, 0, bytes.length, m));
        bh.consume(m.topViaBranch());
        bh.consume(m.callId());
        bh.consume(m.cseqNumber());
        bh.consume(m.toTag());
    }

    /**
     * The baseline: the JAIN-SIP RI parses the same bytes into a new object graph as its own UDP channel does
     * ({@code parseSIPMessage(bytes, true, false, listener)}, here without a listener), and the same four values are
     * read through its API ({@code getViaHeaders().getFirst().getBranch()}, {@code getCallId()},
     * {@code getCSeq().getSeqNumber()}, {@code getTo().getTag()}). One parser instance is reused, as the RI's channel
     * reuses its own.
     */
    @Benchmark
    public void jainSipParse(final Blackhole bh) throws Exception
    {
        final SIPMessage m = jainParser.parseSIPMessage(bytes, true, false, null);
        bh.consume(((Via)m.getViaHeaders().getFirst()).getBranch());
        bh.consume(m.getCallId().getCallId());
        bh.consume(m.getCSeq().getSeqNumber());
        bh.consume(m.getTo().getTag());
    }

    /** The outcome, the four spans the transaction layer reads and the CSeq number, mixed into one value. */
    static long mix(final ParseResult result, final SipMessage m)
    {
        long h = result.ordinal();
        h = 31 * h + m.topViaBranchStart();
        h = 31 * h + m.topViaBranchEnd();
        h = 31 * h + m.callIdStart();
        h = 31 * h + m.callIdEnd();
        h = 31 * h + m.cseqNumber();
        h = 31 * h + m.toTagStart();
        h = 31 * h + m.toTagEnd();
        return h;
    }

    private static String span(final SipMessage m, final int start, final int end)
    {
        return start < 0 ? null : new String(m.buffer(), start, end - start, StandardCharsets.UTF_8);
    }

    private void check(final ParseResult result, final String how)
    {
        if (result != ParseResult.OK)
        {
            throw new IllegalStateException(message + ": Sipline " + how + " returned " + result + " at offset " +
                sipline.errorOffset());
        }
    }

    private void agree(final String what, final Object expected, final Object actual)
    {
        if (!Objects.equals(expected, actual))
        {
            throw new IllegalStateException(message + ": parsers disagree on the " + what + ": JAIN-SIP RI '" +
                expected + "', Sipline '" + actual + "'");
        }
    }

    /** The bytes of the resource {@code name} next to this class (the benchmarks' messages). */
    static byte[] load(final String name) throws IOException
    {
        try (InputStream in = ParseBenchmark.class.getResourceAsStream(name))
        {
            if (null == in)
            {
                throw new IllegalStateException("missing resource io/sipline/jmh/" + name);
            }
            return in.readAllBytes();
        }
    }
}
