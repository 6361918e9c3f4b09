package io.sipline.jmh;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sipline.sip.message.ByteBufCopy;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.ParsedCopy;
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

/**
 * Nanoseconds and bytes allocated to hand one parsed datagram from the shard that read it to the shard that owns its
 * call, both halves on one thread: the reading shard's copy into a pooled direct buffer and the owning shard's
 * message made from it. {@link #copyAndRebind()} is what the stack does ({@link ParsedCopy}: the bytes and the
 * reader's parse, rebound by the owner); its baseline {@link #parseAgain()} copies the bytes only and parses them
 * again on the owner's side, as the stack did before. The reader's own parse (which both need to find the owner) is
 * done once in {@link #setUp()}, outside the measured operation. Each operation ends with the owner reading the four
 * values the transaction layer reads (branch, Call-ID, CSeq number, To tag spans).
 *
 * <p>The messages are resources next to this class, CRLF-terminated with a correct Content-Length, one dialog's
 * datagrams as a B2BUA receives them: {@code invite.sip} (911 bytes, SDP offer), {@code ok.sip} (the 200 with the
 * SDP answer, 853 bytes), {@code ack.sip} and {@code bye.sip} (435 bytes each). {@link #setUp()} throws unless both
 * ways give the owner the same parse.
 *
 * <pre>
 * java -jar jmh/target/benchmarks.jar HandoffBenchmark -prof gc
 * </pre>
 *
 * <p>What one thread cannot show: on a server the two halves run on two cores, and the owner's reads of the copy
 * miss its cache in both ways alike. Not threadsafe; each fork's single benchmark thread owns the state.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class HandoffBenchmark
{
    /** The datagram handed over: the resource {@code <message>.sip} next to this class. */
    @Param({"invite", "ok", "ack", "bye"})
    String message;

    private final SipMessage reader = new SipMessage();
    private final SipMessage owner = new SipMessage();
    private ByteBuf copy;

    /**
     * Parses the message as the reading shard does and checks that both ways give the owner the same parse.
     *
     * @throws IllegalStateException when the message does not parse or the two ways disagree.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        final byte[] bytes = ParseBenchmark.load(message + ".sip");
        if (SipMessageParser.parseDatagram(bytes, 0, bytes.length, reader) != ParseResult.OK
            || reader.frameLength() != bytes.length)
        {
            throw new IllegalStateException(message + ": " + reader.result() + ", framed " + reader.frameLength()
                + " of " + bytes.length + " bytes");
        }
        copy = PooledByteBufAllocator.DEFAULT.directBuffer(ParsedCopy.size(reader));
        final long parsed = parseAgain();
        final String parsedFacts = facts(owner);
        final long rebound = copyAndRebind();
        final String reboundFacts = facts(owner);
        if (parsed != rebound || !parsedFacts.equals(reboundFacts))
        {
            throw new IllegalStateException(message + ": parsed " + parsedFacts + ", rebound " + reboundFacts);
        }
    }

    /** Releases the copy's buffer to its pool. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        copy.release();
    }

    /**
     * The baseline: the reader copies the bytes ({@link ByteBufCopy#write}), the owner parses them again from the
     * buffer ({@link SipMessageParser#parseDatagram(ByteBuf, SipMessage)}).
     *
     * @return the owner's spans and CSeq number mixed into one value, with the outcome.
     */
    @Benchmark
    public long parseAgain()
    {
        final ByteBuf b = copy.clear();
        ByteBufCopy.write(reader.buffer(), reader.offset(), reader.length(), b);
        return ParseBenchmark.mix(SipMessageParser.parseDatagram(b, owner), owner);
    }

    /**
     * The stack's way: the reader copies the bytes and its parse ({@link ParsedCopy#write}), the owner rebinds them
     * ({@link ParsedCopy#read}).
     *
     * @return the owner's spans and CSeq number mixed into one value, with the outcome.
     */
    @Benchmark
    public long copyAndRebind()
    {
        final ByteBuf b = copy.clear();
        ParsedCopy.write(reader, b);
        return ParseBenchmark.mix(ParsedCopy.read(b, owner), owner);
    }

    /** The owner's parse as text: start line, every header entry's spans and value, the body. */
    private static String facts(final SipMessage m)
    {
        final StringBuilder sb = new StringBuilder()
            .append(m.result()).append(' ').append(m.methodName()).append(' ').append(m.requestUri()).append(' ')
            .append(m.statusCode()).append(' ').append(m.reasonPhrase()).append(' ').append(m.callId()).append(' ')
            .append(m.cseqNumber()).append(' ').append(m.cseqMethodName()).append(' ').append(m.fromTag()).append(' ')
            .append(m.toTag()).append(' ').append(m.topViaBranch()).append(' ').append(m.maxForwards()).append(' ')
            .append(m.contentLength()).append(' ').append(m.bodyStart()).append(' ').append(m.bodyLength());
        for (int i = 0; i < m.headerCount(); i++)
        {
            sb.append('\n').append(m.headerName(i)).append(' ').append(m.headerFlags(i)).append(' ')
                .append(m.headerNameStart(i)).append(' ').append(m.headerNameEnd(i)).append(' ')
                .append(m.headerLineEnd(i)).append(' ').append(m.headerValue(i));
        }
        return sb.toString();
    }
}
