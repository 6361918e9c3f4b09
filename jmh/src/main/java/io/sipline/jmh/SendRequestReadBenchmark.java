package io.sipline.jmh;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.transaction.RequestKeyReader;
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
 * Nanoseconds and bytes allocated for the transaction layer to learn what it needs of a request it is given to send
 * (the method, the top Via's branch and magic cookie, the CSeq number and method): the {@link RequestKeyReader}'s quick
 * read ({@link #quickRead()}) against the full parse of the whole request into a reused {@link SipMessage}
 * ({@link #fullParse()}), which is what {@code TransactionLayer.sendRequest} did before, in the same run.
 *
 * <p>The requests are resources next to this class, as the container writes a B2BUA's outbound leg into a pooled
 * direct buffer: {@code outbound-invite.sip} (742 bytes: 12 header lines, our Via alone, an SDP offer of 240 bytes)
 * and {@code outbound-bye.sip} (327 bytes, 8 header lines, no body). {@link #setUp()} throws unless the quick read
 * answered without the parser and agrees with the parse on every field.
 *
 * <pre>
 * java -jar jmh/target/benchmarks.jar SendRequestReadBenchmark -prof gc
 * </pre>
 *
 * <p>Not threadsafe; each fork's single benchmark thread owns the state, as a shard owns its layer.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SendRequestReadBenchmark
{
    /** The request: the resource {@code outbound-<message>.sip} next to this class. */
    @Param({"invite", "bye"})
    String message;

    private final SipMessage parsed = new SipMessage();
    private final RequestKeyReader reader = new RequestKeyReader(new SipMessage());
    private ByteBuf direct;

    /**
     * Loads the request into a pooled direct buffer and checks that the quick read answers it without the parser,
     * with the parser's values.
     *
     * @throws IllegalStateException when the request does not parse, the read fell back, or the two disagree.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        final byte[] bytes = ParseBenchmark.load("outbound-" + message + ".sip");
        direct = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length);
        direct.writeBytes(bytes);
        if (SipMessageParser.parseDatagram(direct, parsed) != ParseResult.OK || !parsed.topViaHasMagicCookie())
        {
            throw new IllegalStateException(message + ": " + parsed.result());
        }
        if (!reader.read(direct) || !reader.quick())
        {
            throw new IllegalStateException(message + ": the quick read left the request to the parser");
        }
        final long full = fullParse();
        final long quick = quickRead();
        if (full != quick || direct.readerIndex() != 0 || direct.readableBytes() != bytes.length)
        {
            throw new IllegalStateException(message + ": the quick read and the parse disagree");
        }
    }

    /** Releases the direct buffer to its pool. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        direct.release();
    }

    /**
     * The baseline: parse the whole request from the direct buffer (one copy into the message's array, every header
     * indexed) and read the fields from the message.
     *
     * @return the fields mixed into one value.
     */
    @Benchmark
    public long fullParse()
    {
        final SipMessage m = parsed;
        if (SipMessageParser.parseDatagram(direct, m) != ParseResult.OK || !m.isRequest())
        {
            return -1;
        }
        return mix(m.method(), m.cseqMethod(), m.cseqNumber(), m.topViaHasMagicCookie(),
            m.topViaBranchEnd() - m.topViaBranchStart(), m.methodEnd() - m.methodStart());
    }

    /**
     * The quick read: the request line, the names of the header lines, the top Via's and the CSeq's values.
     *
     * @return the fields mixed into one value, as {@link #fullParse()}.
     */
    @Benchmark
    public long quickRead()
    {
        final RequestKeyReader r = reader;
        if (!r.read(direct))
        {
            return -1;
        }
        return mix(r.method(), r.cseqMethod(), r.cseqNumber(), r.magicCookie(), r.branchEnd() - r.branchStart(),
            r.methodEnd() - r.methodStart());
    }

    private static long mix(final SipMethod method, final SipMethod cseqMethod, final long cseq, final boolean cookie,
        final int branchLength, final int methodLength)
    {
        long h = method.ordinal();
        h = 31 * h + cseqMethod.ordinal();
        h = 31 * h + cseq;
        h = 31 * h + (cookie ? 1 : 0);
        h = 31 * h + branchLength;
        return 31 * h + methodLength;
    }
}
