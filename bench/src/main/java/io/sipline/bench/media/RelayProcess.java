package io.sipline.bench.media;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.sipline.bench.calls.ProcFs;
import io.sipline.bench.calls.SystemUnderTest;
import io.sipline.media.sdp.SessionDescription;

/**
 * A relay under test in a process of its own, driven over its ng control port: the Sipline relay
 * ({@link NgRelayServer} in a child JVM) or rtpengine (userspace forwarding only: {@code --table=-1}, no config
 * file). Both get the same calls: an {@code offer} of the SRTP phone's SDP asking for {@code RTP/AVP} on the other
 * side, then an {@code answer} of the plain phone's SDP, then a {@code delete}.
 *
 * <p>Not threadsafe; used by the harness thread. {@link #close} stops the process by its handle.
 */
final class RelayProcess implements AutoCloseable
{
    private final String name;
    private final Process process;
    private final NgClient ng;
    private final boolean counters;

    private RelayProcess(final String name, final Process process, final int ngPort, final boolean counters)
        throws IOException
    {
        this.name = name;
        this.process = process;
        this.counters = counters;
        this.ng = new NgClient(new InetSocketAddress(InetAddress.getLoopbackAddress(), ngPort));
    }

    /**
     * Starts the Sipline relay in a JVM of the harness's JDK and class path, with the server's JVM profile, in and
     * logging to {@code dir}.
     *
     * @param profile the JVM profile of {@code jvm-profiles/}, as the server runs with, e.g. {@code zgc}.
     * @param jvmArgs more JVM options after the profile's, e.g. a flight recording.
     */
    static RelayProcess sipline(final SystemUnderTest.Layout layout, final Path dir, final String profile,
        final List<String> jvmArgs, final int threads, final int ngPort, final int portMin, final int portMax)
        throws IOException
    {
        final List<String> cmd = new ArrayList<>(List.of(layout.java(), "--add-modules", "jdk.incubator.vector",
            "--add-opens", "java.base/com.sun.crypto.provider=ALL-UNNAMED",
            "@" + layout.profiles().resolve(profile + ".args")));
        cmd.addAll(jvmArgs);
        // the process runs in the result directory: relative class path entries are made absolute first
        final String classpath = Arrays.stream(layout.classpath().split(File.pathSeparator))
            .map(e -> Path.of(e).toAbsolutePath().toString()).collect(Collectors.joining(File.pathSeparator));
        cmd.addAll(List.of("-cp", classpath, NgRelayServer.class.getName(), Integer.toString(ngPort),
            Integer.toString(portMin), Integer.toString(portMax), Integer.toString(threads)));
        final Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(dir.resolve("sipline-relay.log").toFile()).start();
        return new RelayProcess("Sipline", p, ngPort, true);
    }

    /** Starts rtpengine on loopback, userspace forwarding, logging to {@code dir}. */
    static RelayProcess rtpengine(final String binary, final Path dir, final int threads, final int ngPort,
        final int portMin, final int portMax) throws IOException
    {
        final List<String> cmd = List.of(binary, "--config-file=none", "--foreground", "--log-stderr",
            "--log-level=5", "--table=-1", "--interface=127.0.0.1", "--listen-ng=127.0.0.1:" + ngPort,
            "--port-min=" + portMin, "--port-max=" + portMax, "--num-threads=" + threads, "--delete-delay=0");
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(dir.resolve("rtpengine.log").toFile()).start();
        return new RelayProcess("rtpengine", p, ngPort, false);
    }

    String name()
    {
        return name;
    }

    /** Waits until the relay answers a ping. */
    void awaitReady(final long timeoutMs) throws IOException, InterruptedException
    {
        final long deadline = System.currentTimeMillis() + timeoutMs;
        while (true)
        {
            if (!process.isAlive())
            {
                throw new IOException(name + " exited with " + process.exitValue() + " before it answered");
            }
            try
            {
                ng.request(NgClient.command("ping"));
                return;
            }
            catch (final IOException e)
            {
                if (System.currentTimeMillis() > deadline)
                {
                    throw new IOException(name + " did not answer a ping in " + timeoutMs + " ms", e);
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    /**
     * Anchors one call.
     *
     * @return the relay's port for the SRTP phone, then for the plain phone.
     */
    int[] anchor(final String callId, final String offer, final String answer) throws IOException
    {
        final Map<String, Object> o = NgClient.command("offer");
        o.put("call-id", callId);
        o.put("from-tag", callId + "-a");
        o.put("sdp", offer);
        o.put("transport-protocol", "RTP/AVP");
        o.put("ICE", "remove");
        final String toB = String.valueOf(ng.request(o).get("sdp"));
        final Map<String, Object> a = NgClient.command("answer");
        a.put("call-id", callId);
        a.put("from-tag", callId + "-a");
        a.put("to-tag", callId + "-b");
        a.put("sdp", answer);
        final String toA = String.valueOf(ng.request(a).get("sdp"));
        return new int[] {port(toA), port(toB)};
    }

    private int port(final String sdp) throws IOException
    {
        try
        {
            return SessionDescription.parse(sdp).media().getFirst().port();
        }
        catch (final RuntimeException e)
        {
            throw new IOException(name + " answered an SDP without a usable media line: " + sdp, e);
        }
    }

    /** Ends one call. */
    void delete(final String callId) throws IOException
    {
        final Map<String, Object> d = NgClient.command("delete");
        d.put("call-id", callId);
        d.put("from-tag", callId + "-a");
        ng.request(d);
    }

    /** @return the process's CPU so far, in clock ticks. */
    long cpuTicks()
    {
        return ProcFs.cpuTicks(process.toHandle());
    }

    /** @return packets relayed and bytes its media threads allocated so far; -1 each when the relay cannot say. */
    long[] counters() throws IOException
    {
        if (!counters)
        {
            return new long[] {-1, -1};
        }
        final Map<String, Object> c = ng.request(NgClient.command("sipline-counters"));
        return new long[] {((Number)c.get("relayed")).longValue(), ((Number)c.get("media-allocated-bytes"))
            .longValue()};
    }

    @Override
    public void close()
    {
        ng.close();
        process.destroy();
        try
        {
            if (!process.waitFor(10, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException e)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
