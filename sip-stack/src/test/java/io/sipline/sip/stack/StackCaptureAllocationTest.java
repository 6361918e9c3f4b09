package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;

import io.sipline.sip.capture.HepConfig;
import io.sipline.sip.transport.UdpPeerConfig;
import org.junit.jupiter.api.Test;

/**
 * Bytes the shard threads allocate per stateful OPTIONS transaction with HEP capture on (two captures each: the
 * request read, the 200 sent), beside the same measurement with capture off in the same run
 * ({@link StackAllocationTest#measure}): capture must add nothing per message in the steady state. The collector is
 * a bound {@link DatagramChannel} that never reads (the kernel drops what overflows its buffer, which costs the
 * sender nothing).
 *
 * <p>{@code main} repeats the pair of measurements, e.g. {@code StackCaptureAllocationTest 5}.
 */
class StackCaptureAllocationTest
{
    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 20_000;
    /**
     * What capture may add per transaction: 0 by design; 1 B of slack covers a class initialised or a compilation
     * finished late in one measurement, which comes once, not per message (2 B/tx would be 40 KB per 20,000).
     */
    private static final double MAX_ADDED_BYTES_PER_TRANSACTION = 1;
    /**
     * Pairs measured at most: a one-off cost (a pool or the timer wheel growing once more in one window) lands in one
     * measurement only, while a cost per message shows in every one, so the least of each side is compared.
     */
    private static final int MAX_PAIRS = 3;

    @Test
    void shouldAddNoAllocationPerCapturedMessage() throws Exception
    {
        double off = Double.MAX_VALUE;
        double on = Double.MAX_VALUE;
        for (int pair = 0; pair < MAX_PAIRS && !(on - off <= MAX_ADDED_BYTES_PER_TRANSACTION); pair++)
        {
            final double[] measured = measureBoth();
            off = Math.min(off, measured[0]);
            on = Math.min(on, measured[1]);
        }
        assertTrue(on - off <= MAX_ADDED_BYTES_PER_TRANSACTION,
            "least B/tx of " + MAX_PAIRS + " pairs without capture " + off + ", with " + on);
    }

    public static void main(final String[] args) throws Exception
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        for (int i = 0; i < rounds; i++)
        {
            measureBoth();
        }
    }

    /** Capture off, then on; B/tx of each. */
    static double[] measureBoth() throws Exception
    {
        try (DatagramChannel collector = DatagramChannel.open()
            .bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0)))
        {
            final HepConfig hep = new HepConfig((InetSocketAddress)collector.getLocalAddress(), 1, "secret");
            System.out.print("HEP capture off: ");
            final double off = StackAllocationTest.measure(WARM_UP, MEASURED, StackAllocationTest.KEPT_BUFFERS,
                UdpPeerConfig.DEFAULT, null);
            System.out.print("HEP capture on:  ");
            final double on = StackAllocationTest.measure(WARM_UP, MEASURED, StackAllocationTest.KEPT_BUFFERS,
                UdpPeerConfig.DEFAULT, hep);
            System.out.printf("HEP capture adds %.2f B per transaction (2 captures each)%n", on - off);
            collector.configureBlocking(false);
            final java.nio.ByteBuffer first = java.nio.ByteBuffer.allocate(65_536);
            assertTrue(null != collector.receive(first), "the collector got captures");
            io.sipline.test.HepPacket.decode(first.array(), first.position());
            return new double[] {off, on};
        }
    }
}
