package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.util.ResourceLeakDetector;

/**
 * The Netty settings {@link SipStack} makes for every user unless the user set them: the leak detector off, the
 * recycler keeping every buffer object. Each case runs in a JVM of its own (this one runs with the tests' settings:
 * the leak detector at {@code paranoid}), which prints what Netty ended with once {@link SipStack} is loaded.
 */
class NettyDefaultsTest
{
    @Test
    void shouldTurnTheLeakDetectorOffAndKeepEveryBufferObjectByDefault() throws Exception
    {
        assertEquals("DISABLED 1", probe());
    }

    @Test
    void shouldLeaveWhatTheUserSet() throws Exception
    {
        assertEquals("SIMPLE 8", probe("-Dio.netty.leakDetection.level=simple", "-Dio.netty.recycler.ratio=8"));
        assertEquals("ADVANCED 1", probe("-Dio.netty.leakDetectionLevel=advanced"));
    }

    /** Run by {@link #probe}: loads {@link SipStack}, then prints the leak detector's level and the recycler ratio. */
    public static void main(final String[] args) throws Exception
    {
        Class.forName(SipStack.class.getName(), true, NettyDefaultsTest.class.getClassLoader());
        final String ratio = System.getProperty(SipStack.RECYCLER_RATIO_PROPERTY);
        System.out.println(ResourceLeakDetector.getLevel() + " " + ratio);
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
