package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.netty.util.ResourceLeakDetector;
import io.sipline.sip.stack.SipStack;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.sip.stack.demo.DemoUas;
import io.sipline.test.Sipp;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.sipline.container.router.DefaultApplicationRouter;

/**
 * Bytes allocated on the shard threads per call (target: 14 KB per B2BUA call of 12 messages; the JAIN-SIP
 * RI B2BUA allocates about 573 KB), measured with {@code ThreadMXBean.getThreadAllocatedBytes} of the shard threads
 * around a sipp run, with Netty's leak detector off during the runs (its records are test machinery, and under the
 * paranoid level the container answers slower than sipp's retransmission timers; other tests check for leaks):
 * <ul>
 *   <li>baseline, same run: sipp uac → the stack's {@link DemoUas} (6 messages per call, no container);</li>
 *   <li>sipp uac → the container with the test B2BUA servlet → sipp uas (12 messages per call).</li>
 * </ul>
 * Each side gets a warm-up run first (JIT, pools, timer wheels). T1 is 100 ms so that transactions end (Timer J/L at
 * 64*T1 = 6.4 s, shorter than the warm-up) within the run instead of accumulating as pool growth.
 * <p>{@code main} prints the same figures outside surefire.
 */
class B2buaAllocationTest
{
    private static final int WARM_UP = 1_000;
    private static final int MEASURED = 1_000;
    private static final int RATE = 100;
    /** A regression bound, not the target: the measured figure is in the test output and the session report. */
    private static final double MAX_BYTES_PER_B2BUA_CALL = 20_000;
    /** A regression bound for a record-routed proxied call (target: 8 KB). */
    private static final double MAX_BYTES_PER_PROXIED_CALL = 30_000;

    @Test
    void shouldMeasureBytesPerB2buaCallAgainstTheStackAlone() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        final ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        final double stack;
        final double b2bua;
        final double proxy;
        try
        {
            stack = attempts(B2buaAllocationTest::stackUasBytesPerCall);
            b2bua = attempts(B2buaAllocationTest::b2buaBytesPerCall);
            proxy = attempts(B2buaAllocationTest::proxyBytesPerCall);
        }
        finally
        {
            ResourceLeakDetector.setLevel(level);
        }
        System.out.printf("allocation per call on the shard threads: stack UAS (6 messages) %.0f B, container "
            + "B2BUA (12 messages) %.0f B, record-routing proxy (12 messages) %.0f B%n", stack, b2bua, proxy);
        assertTrue(b2bua <= MAX_BYTES_PER_B2BUA_CALL, "bytes per B2BUA call: " + b2bua);
        assertTrue(proxy <= MAX_BYTES_PER_PROXIED_CALL, "bytes per proxied call: " + proxy);
    }

    public static void main(final String[] args) throws Exception
    {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        if (args.length > 1 && "proxy".equals(args[1]))
        {
            for (int i = 0; i < rounds; i++)
            {
                System.out.printf("proxy %.0f B/call%n", attempts(B2buaAllocationTest::proxyBytesPerCall));
            }
            return;
        }
        for (int i = 0; i < rounds; i++)
        {
            System.out.printf("stack UAS %.0f B/call, container B2BUA %.0f B/call, proxy %.0f B/call%n",
                attempts(B2buaAllocationTest::stackUasBytesPerCall), attempts(B2buaAllocationTest::b2buaBytesPerCall),
                attempts(B2buaAllocationTest::proxyBytesPerCall));
        }
    }

    private static SipStackConfig config()
    {
        return new SipStackConfig().addresses(List.of(TestApps.LOOPBACK)).ports(0).shards(2).t1Ns(100_000_000L)
            .t2Ns(800_000_000L);
    }

    static double stackUasBytesPerCall() throws Exception
    {
        final DemoUas.Stats stats = new DemoUas.Stats();
        try (SipStack stack = SipStack.start(config(), DemoUas.factory(stats)))
        {
            final int port = stack.localAddresses().getFirst().getPort();
            if (!uac("alloc-stack-warm", port, WARM_UP))
            {
                return Double.NaN;
            }
            final long[] ids = stack.shardThreadIds();
            final boolean[] ok = new boolean[1];
            final long bytes = measured(ids, () -> ok[0] = uac("alloc-stack", port, MEASURED));
            return ok[0] ? bytes / (double)MEASURED : Double.NaN;
        }
    }

    static double b2buaBytesPerCall() throws Exception
    {
        return containerBytesPerCall("b2bua", new DispatchSippTest.B2bua(), List.of("-sn", "uas"),
            List.of("-sn", "uac"));
    }

    /**
     * sipp's basic call through a record-routing proxy servlet (one target): INVITE, 100, 180, 200, ACK, BYE, 200 on
     * both sides (the caller follows the Record-Route, {@code sipp/routed-caller.xml}).
     */
    static double proxyBytesPerCall() throws Exception
    {
        return containerBytesPerCall("proxy", new RecordRoutingProxy(),
            List.of("-sf", DispatchSippTest.scenario("routed-callee.xml").toString()),
            List.of("-sf", DispatchSippTest.scenario("routed-caller.xml").toString()));
    }

    /**
     * Bytes per call on the shard threads for {@code servlet} (its context parameter {@code target} the sipp far
     * end) between a sipp caller and callee with the given scenarios; NaN when a call failed.
     */
    private static double containerBytesPerCall(final String name, final javax.servlet.sip.SipServlet servlet,
        final List<String> callee, final List<String> caller) throws Exception
    {
        final int uasPort = Sipp.freeUdpPort();
        Process uas = null;
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        try (ContainerServer server = ContainerServer.start(config(), router))
        {
            server.registry().onDeployed(TestApps.application(name, servlet,
                Map.of("target", "sip:service@127.0.0.1:" + uasPort)));
            final List<String> uasArgs = new java.util.ArrayList<>(callee);
            uasArgs.addAll(List.of("-m", Integer.toString(WARM_UP + MEASURED)));
            uas = Sipp.start("alloc-" + name + "-uas", uasArgs, uasPort);
            final int port = server.localAddresses().getFirst().getPort();
            if (!uac("alloc-" + name + "-warm", port, WARM_UP, caller))
            {
                return Double.NaN;
            }
            assertTrue(Sipp.await(() -> 0 == server.applicationSessions(), 10_000), "sessions left after warm-up");
            final boolean[] ok = new boolean[1];
            final long bytes = measured(server.stack().shardThreadIds(),
                () -> ok[0] = uac("alloc-" + name, port, MEASURED, caller));
            assertEquals(0, server.counters().servletErrors.get());
            if (!ok[0])
            {
                return Double.NaN;
            }
            assertTrue(Sipp.await(() -> 0 == server.applicationSessions(), 10_000), "sessions left");
            return bytes / (double)MEASURED;
        }
        finally
        {
            Sipp.stop(uas);
        }
    }

    /** A record-routing proxy to the context parameter {@code target}, with the JSR 289 Proxy only. */
    public static final class RecordRoutingProxy extends javax.servlet.sip.SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doInvite(final javax.servlet.sip.SipServletRequest req)
            throws javax.servlet.ServletException, java.io.IOException
        {
            if (!req.isInitial())
            {
                return;
            }
            final javax.servlet.sip.SipFactory factory =
                (javax.servlet.sip.SipFactory)getServletContext().getAttribute(SIP_FACTORY);
            final javax.servlet.sip.Proxy proxy = req.getProxy();
            proxy.setRecordRoute(true);
            proxy.proxyTo(factory.createURI(getServletContext().getInitParameter("target")));
        }
    }

    private interface Run
    {
        void run() throws Exception;
    }

    private interface Measurement
    {
        /** Bytes per call, or NaN when a call failed (the run then measured something else). */
        double bytesPerCall() throws Exception;
    }

    /**
     * Up to three runs: a run in which sipp counted a failed call is discarded, not reported. On this shared 2-core
     * machine sipp itself can be starved (its "overload warning: the minor watchdog timer 500ms has been tripped"),
     * its timers fire late and its strict scenario aborts a call; that is the machine, not the code measured.
     */
    private static double attempts(final Measurement measurement) throws Exception
    {
        for (int i = 0; i < 3; i++)
        {
            final double perCall = measurement.bytesPerCall();
            if (!Double.isNaN(perCall))
            {
                return perCall;
            }
        }
        throw new AssertionError("three runs in a row had failed sipp calls; see target/sipp/alloc-*");
    }

    private static long measured(final long[] ids, final Run run) throws Exception
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long before = allocated(threads, ids);
        run.run();
        return allocated(threads, ids) - before;
    }

    private static long allocated(final com.sun.management.ThreadMXBean threads, final long[] ids)
    {
        long n = 0;
        for (final long id : ids)
        {
            n += threads.getThreadAllocatedBytes(id);
        }
        return n;
    }

    /** sipp's built-in uac, {@code calls} calls at {@value #RATE}/s; true when every call succeeded. */
    private static boolean uac(final String name, final int port, final int calls) throws Exception
    {
        return uac(name, port, calls, List.of("-sn", "uac"));
    }

    /** sipp with {@code scenario} ({@code -sn NAME} or {@code -sf FILE}), as {@link #uac(String, int, int)}. */
    private static boolean uac(final String name, final int port, final int calls, final List<String> scenario)
        throws Exception
    {
        Process sipp = null;
        try
        {
            final List<String> args = new java.util.ArrayList<>(List.of("127.0.0.1:" + port));
            args.addAll(scenario);
            args.addAll(List.of("-m", Integer.toString(calls), "-r", Integer.toString(RATE), "-l", "1000",
                "-timeout", "60s", "-timeout_error"));
            sipp = Sipp.start(name, args);
            assertTrue(sipp.waitFor(70, TimeUnit.SECONDS), "sipp did not end\n" + Sipp.report(name));
        }
        finally
        {
            Sipp.stop(sipp);
        }
        final long[] okFailed = Sipp.successAndFailed(name);
        if (calls != okFailed[0] || 0 != okFailed[1])
        {
            System.out.println(name + ": sipp ok/failed " + okFailed[0] + "/" + okFailed[1] + ", run discarded");
            return false;
        }
        return true;
    }
}
