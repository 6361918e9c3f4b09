package io.sipline.container.warmup;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

import javax.servlet.sip.SipServlet;

import io.netty.util.NetUtil;

import io.sipline.container.deploy.ApplicationArchive;
import io.sipline.container.deploy.ApplicationClassLoader;
import io.sipline.container.deploy.DeployedApplication;
import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.DescriptorOrigin;
import io.sipline.container.deploy.ServletDefinition;
import io.sipline.container.deploy.SipApplicationDescriptor;
import io.sipline.container.dispatch.ContainerServer;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.container.security.UserRealm;
import io.sipline.sip.stack.SipStack;
import io.sipline.sip.stack.SipStackConfig;

/**
 * Warms the JIT up before the server takes traffic ({@code bin/sipline run --warmup CALLS}). A JVM starts by
 * interpreting, and a server started straight under full load falls behind its input in its first seconds, far enough
 * for both ends to retransmit and for callers to fail calls.
 *
 * <p>How: a container of its own on loopback ports the system picks, with one application, {@link WarmupB2bua}, and
 * never the deployed ones (their servlets may have effects outside the server); a second container with
 * {@link WarmupCallee} as the far end (180, 200, 200 to BYE) and a stack-level {@link WarmupCaller} as the callers
 * (INVITE, ACK, BYE) place {@code calls} calls through it at {@link #RATE} calls/s. All three are closed afterwards,
 * and the method returns once the JIT's compile queue is quiet ({@link CompilationMXBean}). The container, stack and
 * transport code that carries a relayed call is then compiled in this JVM; the deployed applications' own code is not.
 * With overload control on, the B2BUA runs it with the server's target on a clock that is late in windows
 * ({@link LateWindows}): a share of the calls is refused {@code 503} as a surge would have them, so that the code of
 * refusing is compiled too, and the call path with it. Then, the JIT quiet, rounds on a clock that is always late
 * refuse {@link #MIN_REFUSALS} more calls, and up to {@link #FURTHER_ROUNDS} rounds as many again while the refusal's
 * code is unsettled ({@link RefusalCode}): the windows' refusals run while the compile queue is long, in code C1
 * compiled without a profile (tier 2) or with one (tier 3), and C2 would otherwise compile the methods a refusal calls
 * once each in the first surge, on the CPU it needs.
 *
 * <p>Threading: the caller's thread waits; the three stacks run on their own shard threads.
 */
public final class Warmup
{
    /** Calls per second of the warm-up. */
    public static final int RATE = 2_000;
    /** The application's name (never one a WAR can have: it starts with the server's own prefix). */
    public static final String APPLICATION = "sipline-warmup";
    /** The far end's application, in a container of its own. */
    static final String CALLEE = APPLICATION + "-callee";
    /** How long the calls may take at most, whatever their count. */
    static final long CALLS_LIMIT_NS = TimeUnit.SECONDS.toNanos(120);
    /** How long to wait at most for the compile queue to go quiet. */
    static final long JIT_LIMIT_NS = TimeUnit.SECONDS.toNanos(10);
    /** The compile queue is quiet when the JIT's total time did not move over this much. */
    static final long JIT_QUIET_NS = TimeUnit.MILLISECONDS.toNanos(200);
    /** The late windows of the overload clock: the first opens after the first calls completed, then every second. */
    static final long LATE_FIRST_NS = TimeUnit.MILLISECONDS.toNanos(250);
    /** A window: an interval to find the standing queue, about two of refusals. */
    static final long LATE_WINDOW_NS = TimeUnit.MILLISECONDS.toNanos(300);
    static final long LATE_PERIOD_NS = TimeUnit.SECONDS.toNanos(1);
    /** How far past the target the clock runs in a window (past the admission limit's pressure mark as well). */
    static final long LATE_PAST_TARGET_NS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * Calls the always-late rounds refuse with overload control on: a method a refusal calls once is compiled by C2
     * after about 5,000 calls in profiled code ({@code -XX:Tier4InvocationThreshold}).
     */
    static final int MIN_REFUSALS = 8_000;
    /** Rounds of refusals at most, each a little longer than the refusals still missing. */
    static final int REFUSAL_ROUNDS = 3;
    /**
     * Rounds of {@link #MIN_REFUSALS} more at most, each after one that left the refusal's code unsettled: under a
     * confined CPU the compile queue is long through the first rounds, C1 compiles the refusal's methods late and
     * without a profile (tier 2), and they reach C2 only if refusals go on.
     */
    static final int FURTHER_ROUNDS = 2;

    /**
     * What the warm-up did.
     *
     * @param calls     calls asked for.
     * @param completed calls that ended with the 200 to their BYE.
     * @param refused   calls its overload control refused (503: the late windows and the always-late rounds).
     * @param failed    calls that failed otherwise (the warm-up goes on: it only has to run the code).
     * @param millis    how long it took, with the wait for the JIT.
     * @param jitMillis the JIT's compile time during it (-1 where the JVM does not measure it).
     * @param refusalRounds the always-late rounds it ran.
     * @param unsettled the refusal's methods the last round compiled at tier 2 or by C2 ({@link RefusalCode}): none
     *                  when its code held through the round.
     */
    public record Result(int calls, long completed, long refused, long failed, long millis, long jitMillis,
        int refusalRounds, Set<String> unsettled)
    {
    }

    private Warmup()
    {
    }

    /**
     * Places {@code calls} calls through a warm-up container of {@code shards} shards in two rounds, each followed by
     * a wait for the JIT. Two, because while the JIT's compile queue is long (a busy or confined CPU) C1 compiles
     * without a branch profile (tier 2): what the first round ran only there, refusing among it, is profiled in the
     * second, once the queue is quiet, so that C2 does not compile it with those branches pruned as never taken.
     *
     * @param overloadWaitNs the server's overload target ({@code --overload-wait}); 0: off, nothing refused.
     * @throws IOException when a loopback socket cannot be bound or the warm-up application cannot be made.
     */
    public static Result run(final int calls, final int shards, final long overloadWaitNs)
        throws IOException, InterruptedException
    {
        return run(calls, shards, overloadWaitNs, () -> new LateWindows(LATE_FIRST_NS, LATE_WINDOW_NS,
            LATE_PERIOD_NS, overloadWaitNs + LATE_PAST_TARGET_NS), 0 == overloadWaitNs ? 0 : MIN_REFUSALS,
            RefusalCode::read);
    }

    /**
     * {@link #run(int, int, long)} with the overload clock of each round made by {@code overloadClocks}, then rounds
     * on an always-late clock until {@code minRefusals} more calls were refused, and further rounds while the last
     * one left the refusal's code unsettled in the code lists of {@code codeList} ({@link RefusalCode#read()}).
     */
    static Result run(final int calls, final int shards, final long overloadWaitNs,
        final Supplier<LongSupplier> overloadClocks, final int minRefusals, final Supplier<String> codeList)
        throws IOException, InterruptedException
    {
        final long start = System.nanoTime();
        final long jitBefore = jitMillis();
        final WarmupCaller.Totals callers = new WarmupCaller.Totals();
        round(calls - calls / 2, shards, overloadWaitNs, overloadClocks.get(), callers);
        awaitQuietJit();
        if (calls / 2 > 0)
        {
            round(calls / 2, shards, overloadWaitNs, overloadClocks.get(), callers);
            awaitQuietJit();
        }
        final long windowsRefused = callers.refused.get();
        Set<String> unsettled = Set.of();
        int rounds = 0;
        for (int i = 0; i < REFUSAL_ROUNDS && callers.refused.get() - windowsRefused < minRefusals; i++, rounds++)
        {
            // Each round's first interval finds the standing queue and lets its calls through: a few more calls.
            unsettled = refusalRound((int)(minRefusals - (callers.refused.get() - windowsRefused)) + RATE / 5,
                shards, overloadWaitNs, callers, codeList);
        }
        for (int i = 0; minRefusals > 0 && i < FURTHER_ROUNDS && !unsettled.isEmpty(); i++, rounds++)
        {
            unsettled = refusalRound(minRefusals + RATE / 5, shards, overloadWaitNs, callers, codeList);
        }
        final long jitAfter = jitMillis();
        return new Result(calls, callers.completed.get(), callers.refused.get(), callers.failed.get(),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), jitBefore < 0 ? -1 : jitAfter - jitBefore,
            rounds, unsettled);
    }

    /** The refusal's methods of {@code unsettled} as class and method names (at most five, then a count). */
    public static String describe(final Set<String> unsettled)
    {
        final List<String> names = unsettled.stream().map(RefusalCode::shortName).distinct().toList();
        return String.join(", ", names.subList(0, Math.min(5, names.size())))
            + (names.size() > 5 ? " and " + (names.size() - 5) + " more" : "");
    }

    /** One round: {@code calls} calls through containers of its own, counted into {@code callers}. */
    private static void round(final int calls, final int shards, final long overloadWaitNs,
        final LongSupplier overloadClock, final WarmupCaller.Totals callers) throws IOException, InterruptedException
    {
        final long before = callers.ended();
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final Path dir = Files.createTempDirectory(APPLICATION);
        try (ContainerServer callee = ContainerServer.start(config(loopback, shards), router());
            Deployed _ = deploy(callee, application(dir.resolve("callee"), CALLEE, new WarmupCallee(), Map.of()));
            ContainerServer server = ContainerServer.start(config(loopback, shards).overloadWaitNs(overloadWaitNs),
                router(), UserRealm.empty(), overloadClock);
            Deployed _ = deploy(server, application(dir.resolve("b2bua"), APPLICATION, new WarmupB2bua(),
                Map.of(WarmupB2bua.TARGET, "sip:warmup@" + NetUtil.toSocketAddressString(
                    callee.localAddresses().getFirst()))));
            SipStack _ = SipStack.start(config(loopback, shards),
                WarmupCaller.factory(callers, server.localAddresses().getFirst(), calls, RATE)))
        {
            final long deadline = System.nanoTime() + CALLS_LIMIT_NS;
            while (callers.ended() - before < calls && System.nanoTime() < deadline)
            {
                TimeUnit.MILLISECONDS.sleep(10); // the caller's thread only waits; the shards work
            }
        }
        finally
        {
            delete(dir);
        }
    }

    private static SipStackConfig config(final InetAddress loopback, final int shards)
    {
        return new SipStackConfig().addresses(List.of(loopback)).ports(0).shards(shards).tcp(false);
    }

    private static DefaultApplicationRouter router()
    {
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        return router;
    }

    /** An application deployed on a server, undeployed at close. */
    private record Deployed(ContainerServer server, DeployedApplication application) implements AutoCloseable
    {
        @Override
        public void close()
        {
            server.registry().onUndeployed(application);
        }
    }

    private static Deployed deploy(final ContainerServer server, final DeployedApplication application)
        throws IOException
    {
        try
        {
            server.registry().onDeployed(application);
        }
        catch (final DeploymentException e)
        {
            application.close();
            throw new IOException("the warm-up application " + application.name() + " did not start: "
                + e.getMessage(), e);
        }
        return new Deployed(server, application);
    }

    /**
     * A warm-up application of one servlet (one of the server's own classes), its class loader over an empty
     * folder.
     */
    private static DeployedApplication application(final Path dir, final String name, final SipServlet servlet,
        final Map<String, String> contextParams) throws IOException
    {
        Files.createDirectories(dir.resolve("WEB-INF"));
        final ApplicationClassLoader loader;
        try (ApplicationArchive archive = ApplicationArchive.open(dir))
        {
            loader = ApplicationClassLoader.create(archive, name, Warmup.class.getClassLoader());
        }
        catch (final DeploymentException e)
        {
            throw new IOException("the warm-up application cannot be made: " + e.getMessage(), e);
        }
        final SipApplicationDescriptor.Builder b = SipApplicationDescriptor.builder().appName(name)
            .source("sipline warm-up");
        contextParams.forEach(b::putContextParam);
        b.putServlet(new ServletDefinition("main", servlet.getClass().getName(), null, null, Map.of(), 1,
            DescriptorOrigin.ANNOTATION, "sipline warm-up", -1));
        b.mainServlet("main", -1);
        return new DeployedApplication(name, b.build(), loader, Map.of("main", servlet), List.of(), dir);
    }

    /**
     * A round of {@code calls} calls on an always-late overload clock, then a wait for the JIT.
     *
     * @return the refusal's methods it left unsettled ({@link RefusalCode#unsettled}).
     */
    private static Set<String> refusalRound(final int calls, final int shards, final long overloadWaitNs,
        final WarmupCaller.Totals callers, final Supplier<String> codeList) throws IOException, InterruptedException
    {
        final String before = codeList.get();
        round(calls, shards, overloadWaitNs, new LateWindows(0, LATE_PERIOD_NS, LATE_PERIOD_NS,
            overloadWaitNs + LATE_PAST_TARGET_NS), callers);
        awaitQuietJit();
        return RefusalCode.unsettled(before, codeList.get());
    }

    /** Waits until the JIT's total compile time stops moving (at most {@link #JIT_LIMIT_NS}). */
    private static void awaitQuietJit() throws InterruptedException
    {
        if (jitMillis() < 0)
        {
            return;
        }
        final long deadline = System.nanoTime() + JIT_LIMIT_NS;
        long last = jitMillis();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < JIT_QUIET_NS && System.nanoTime() < deadline)
        {
            TimeUnit.MILLISECONDS.sleep(20);
            final long now = jitMillis();
            if (now != last)
            {
                last = now;
                quietSince = System.nanoTime();
            }
        }
    }

    /** The JIT's total compile time so far, or -1 where the JVM does not measure it. */
    private static long jitMillis()
    {
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return null == jit || !jit.isCompilationTimeMonitoringSupported() ? -1 : jit.getTotalCompilationTime();
    }

    private static void delete(final Path dir) throws IOException
    {
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (final Path p : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
