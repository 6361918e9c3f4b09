package io.sipline.media.ice;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The retained heap of one ICE session at PJNATH's footprint checkpoints, with PJNATH's call setup: the caller has 2
 * components (RTP, RTCP) with 3 candidates each (host, server-reflexive, relayed), the callee 2 host candidates, one
 * per component.
 *
 * <p>Method: N calls run side by side in a {@link SimulatedNetwork} (the caller behind a NAT, a STUN server and a
 * {@link SimulatedTurnServer}) up to a checkpoint; the live heap is taken ({@link LiveHeap}: the exact bytes of the
 * reachable objects, read until stable), the N callers are then detached and dropped, the live heap is taken again,
 * and the difference divided by N is the retained size of one caller-side session (agent, candidates, check list,
 * transactions, both TURN clients). The per-thread {@link IceContext} (scratch buffers, codec, integrity engine) is
 * shared by every session of a thread and reported once. Sockets are not counted (PJNATH's figures do count its
 * per-socket packet buffers).
 *
 * <p>Prints a table beside PJNATH's figures and holds the budget: at most 8 KB per call at any checkpoint with RTCP
 * as a second component, at most 5 KB with RTCP-mux.
 */
class IceMemoryBudgetTest
{
    private static final int CALLS = 1_000;
    private static final String[] CHECKPOINTS = {
        "1) gathered (TURN allocated)", "2) answer applied, checks formed", "3) ICE complete", "4) 60 s into call"};
    private static final long[] PJNATH_DEFAULT = {41_968, 43_936, 55_008, 44_568};
    private static final long[] PJNATH_TUNED = {21_488, 21_032, 25_368, 21_464};
    private static final long[] PJNATH_NO_RTCP = {11_264, 12_800, 18_544, 13_136};

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** One call: the measured caller and its callee. */
    private static final class Call
    {
        IceAgent caller;
        IceAgent callee;
    }

    @Test
    void shouldMeasureTheRetainedHeapPerSessionAtEachCheckpoint() throws IceParseException
    {
        final long[][] results = new long[3][CHECKPOINTS.length];
        final long[][] allocated = new long[3][CHECKPOINTS.length];
        final String[] configurations = {"2 components, PJNATH limits", "2 components, tuned limits",
            "RTCP-mux (1 component), tuned"};
        // One discarded run first: the first run in a JVM also makes one-time objects (classes' caches, the MBean
        // behind LiveHeap), which are not the heap of a session.
        measure(IceLimits.PJNATH, 2, 1, new long[CHECKPOINTS.length]);
        for (int checkpoint = 0; checkpoint < CHECKPOINTS.length; checkpoint++)
        {
            results[0][checkpoint] = measure(IceLimits.PJNATH, 2, checkpoint, allocated[0]);
            results[1][checkpoint] = measure(IceLimits.PJNATH_TUNED, 2, checkpoint, allocated[1]);
            results[2][checkpoint] = measure(IceLimits.PJNATH_TUNED, 1, checkpoint, allocated[2]);
        }
        final long contextBytes = contextBytes();

        final StringBuilder out = new StringBuilder(2048);
        out.append(String.format("%nRetained heap per ICE session (caller side), bytes; %d calls, live-heap diff, class"
            + " histogram (JDK %s, %s)%n", CALLS, Runtime.version(),
            ManagementFactory.getRuntimeMXBean().getVmName()));
        out.append(String.format("%-36s %10s %10s %10s | %9s %9s %9s%n", "checkpoint", "2c/PJNATH", "2c/tuned",
            "mux/tuned", "PJNATH", "PJ tuned", "PJ noRTCP"));
        for (int k = 0; k < CHECKPOINTS.length; k++)
        {
            out.append(String.format("%-36s %10d %10d %10d | %9d %9d %9d%n", CHECKPOINTS[k], results[0][k],
                results[1][k], results[2][k], PJNATH_DEFAULT[k], PJNATH_TUNED[k], PJNATH_NO_RTCP[k]));
        }
        out.append(String.format("%-36s %10d %10d %10d%n", "allocated per call up to checkpoint 4",
            allocated[0][3], allocated[1][3], allocated[2][3]));
        out.append(String.format("Shared per media thread, not per session: IceContext %d B.%n", contextBytes));
        out.append("PJNATH columns: 'Used' bytes of PJNATH's tables at its checkpoints 1, 4, 5 and 6 (its 2 and 3"
            + " are NAT-type detection and idle-before-call, which have no counterpart here).%n".formatted());
        System.out.print(out);

        for (int c = 0; c < 3; c++)
        {
            for (int k = 0; k < CHECKPOINTS.length; k++)
            {
                final long budget = 2 == c ? 5 * 1024 : 8 * 1024;
                assertTrue(results[c][k] > 0 && results[c][k] <= budget,
                    configurations[c] + " " + CHECKPOINTS[k] + ": " + results[c][k] + " B, budget " + budget);
            }
        }
    }

    /** Runs CALLS calls to a checkpoint and returns the retained bytes of one caller session. */
    private static long measure(final IceLimits limits, final int components, final int checkpoint,
        final long[] allocatedOut) throws IceParseException
    {
        final SimulatedNetwork net = new SimulatedNetwork();
        // The 1,000 calls start at one simulated instant; RFC 8445 §14.2's 5 ms between the checks of a thread would
        // stretch their checks over a minute of simulated time. Memory is measured here, not pacing.
        final IceContext context = new IceContext().pacingMs(0);
        final InetSocketAddress stun = new InetSocketAddress("198.51.100.100", 3478);
        final InetSocketAddress turnAddress = new InetSocketAddress("198.51.100.200", 3478);
        net.stunServer(stun);
        new SimulatedTurnServer(net, turnAddress, "user", "pass");
        final List<Call> calls = new ArrayList<>(CALLS);
        final long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < CALLS; i++)
        {
            final Call call = new Call();
            final Map<Integer, InetSocketAddress> callerSockets = new HashMap<>();
            final Map<Integer, InetSocketAddress> calleeSockets = new HashMap<>();
            call.caller = new IceAgent(context, limits, components, false, true, net.transport(callerSockets),
                new IceAgent.Listener()
                {
                });
            call.callee = new IceAgent(context, limits, components, false, false, net.transport(calleeSockets),
                new IceAgent.Listener()
                {
                });
            for (int c = 1; c <= components; c++)
            {
                final InetSocketAddress inside = new InetSocketAddress(ip(10, i), 1000 + c);
                final InetSocketAddress outside = new InetSocketAddress(ip(203, i), 40000 + c);
                net.nat(inside, outside);
                callerSockets.put(c, inside);
                net.attach(call.caller, c, inside);
                call.caller.addHostCandidate(c, c, inside);
                final InetSocketAddress callee = new InetSocketAddress(ip(172, i), 2000 + c);
                calleeSockets.put(c, callee);
                net.attach(call.callee, c, callee);
                call.callee.addHostCandidate(c, c, callee);
            }
            call.caller.gather(stun, turnAddress, "user", "pass", net.now());
            call.callee.gather(null, null, null, null, net.now());
            calls.add(call);
        }
        net.runUntil(() -> calls.stream().allMatch(c -> c.caller.gatheringComplete()), 5_000);
        for (final Call call : calls)
        {
            assertEquals(3 * components, call.caller.localCandidateCount(), "host, srflx and relayed per component");
        }
        if (checkpoint >= 1)
        {
            for (final Call call : calls)
            {
                call.callee.applyRemoteDescription(call.caller.localDescription(), net.now());
                call.caller.applyRemoteDescription(call.callee.localDescription(), net.now());
            }
        }
        if (checkpoint >= 2)
        {
            net.runUntil(() -> calls.stream().allMatch(c -> IceAgent.STATE_COMPLETED == c.caller.state()
                && IceAgent.STATE_COMPLETED == c.callee.state()), 20_000);
        }
        if (checkpoint >= 3)
        {
            net.run(60_000, 10); // 10 ms steps: consent runs every 4-6 s
            assertTrue(calls.stream().allMatch(c -> IceAgent.STATE_COMPLETED == c.caller.state()),
                "consent kept every call alive");
        }
        allocatedOut[checkpoint] = (THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore) / CALLS;
        final long withCallers = LiveHeap.bytes();
        for (final Call call : calls)
        {
            net.detach(call.caller);
            call.caller = null;
        }
        final long withoutCallers = LiveHeap.bytes();
        assertEquals(CALLS, calls.size());
        return (withCallers - withoutCallers) / CALLS;
    }

    private static long contextBytes()
    {
        final int n = 1_000;
        final long before = LiveHeap.bytes();
        final IceContext[] contexts = new IceContext[n];
        for (int i = 0; i < n; i++)
        {
            contexts[i] = new IceContext();
        }
        final long bytes = (LiveHeap.bytes() - before) / n;
        assertEquals(n, contexts.length);
        return bytes;
    }

    private static String ip(final int first, final int i)
    {
        return first + "." + (i >> 14 & 0xFF) + "." + (i >> 7 & 0x7F) + "." + ((i & 0x7F) + 1);
    }
}
