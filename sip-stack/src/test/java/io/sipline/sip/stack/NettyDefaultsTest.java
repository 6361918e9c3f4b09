package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.util.Recycler;
import io.netty.util.ResourceLeakDetector;

/**
 * The Netty settings {@link SipStack} makes for every user unless the user set them: the leak detector off, the
 * recycler keeping every buffer object given back, up to {@link SipStack#RECYCLER_CAPACITY} per thread (after a
 * burst of 1,000 objects given back, as many are taken again from the pool, the rest made anew). Each case runs in a
 * JVM of its own (this one runs with the tests' settings: the leak detector at {@code paranoid}), which prints what
 * Netty ended with once {@link SipStack} is loaded.
 */
class NettyDefaultsTest
{
    @Test
    void shouldTurnTheLeakDetectorOffAndKeepEveryBufferObjectByDefault() throws Exception
    {
        assertEquals("DISABLED 1 " + SipStack.RECYCLER_CAPACITY + " reused " + SipStack.RECYCLER_CAPACITY, probe());
    }

    @Test
    void shouldLeaveWhatTheUserSet() throws Exception
    {
        assertEquals("SIMPLE 8 256 reused 125", probe("-Dio.netty.leakDetection.level=simple",
            "-Dio.netty.recycler.ratio=8"));
        assertEquals("ADVANCED 1 256 reused 256", probe("-Dio.netty.leakDetectionLevel=advanced"));
        assertEquals("DISABLED 1 4096 reused 1000", probe("-Dio.netty.recycler.maxCapacityPerThread=4096"));
        assertEquals("DISABLED 1 null reused 1000", probe("-Dio.netty.recycler.maxCapacity=2048"));
    }

    /**
     * Run by {@link #probe}: loads {@link SipStack}, then prints the leak detector's level, the recycler ratio and
     * capacity properties, and how many of a burst of 1,000 objects given back to a recycler were taken again.
     */
    public static void main(final String[] args) throws Exception
    {
        Class.forName(SipStack.class.getName(), true, NettyDefaultsTest.class.getClassLoader());
        final String ratio = System.getProperty(SipStack.RECYCLER_RATIO_PROPERTY);
        final String capacity = System.getProperty(SipStack.RECYCLER_CAPACITY_PROPERTY);
        System.out.println(ResourceLeakDetector.getLevel() + " " + ratio + " " + capacity + " reused " + reused(1_000));
    }

    /** Takes {@code burst} objects from a recycler, gives them all back, takes as many again: how many were reused. */
    private static int reused(final int burst)
    {
        final Recycler<Probe> recycler = new Recycler<>()
        {
            @Override
            protected Probe newObject(final Recycler.Handle<Probe> handle)
            {
                return new Probe(handle);
            }
        };
        final Set<Probe> first = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < burst; i++)
        {
            first.add(recycler.get());
        }
        first.forEach(p -> p.handle.recycle(p));
        int reused = 0;
        for (int i = 0; i < burst; i++)
        {
            reused += first.contains(recycler.get()) ? 1 : 0;
        }
        return reused;
    }

    /** A recycled object: its handle. */
    private record Probe(Recycler.Handle<Probe> handle)
    {
    }

    private static String probe(final String... properties) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(List.of(properties));
        command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            NettyDefaultsTest.class.getName()));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try
        {
            final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || 0 != process.exitValue())
            {
                throw new AssertionError("the probe JVM failed: " + output);
            }
            final String[] lines = output.strip().split("\n");
            return lines[lines.length - 1].strip();
        }
        finally
        {
            process.destroyForcibly();
        }
    }
}
