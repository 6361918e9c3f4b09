package io.sipline.bench.media;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.sipline.bench.calls.HarnessOptions;
import io.sipline.bench.calls.ProcFs;
import io.sipline.bench.calls.SiplineJvmArgs;
import io.sipline.test.Sipp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/sipline bench media}: N anchored calls, each an SDES-SRTP leg and a plain RTP leg at 50 packets/s of
 * 160-octet audio both ways ({@link MediaLoad}), through the Sipline relay and through rtpengine's userspace path
 * in the same run, each in a process of its own driven over the ng protocol ({@link RelayProcess}). N steps up;
 * at each step each relay still holding gets the same load for {@code --seconds} after a warm-up. A relay holds a
 * step with under 0.1 % loss and at most 5 ms added jitter at p99; it leaves the run at its first step not held,
 * unless {@code --keep-going} (a shared machine can miss the jitter bound at every step, and the packets per
 * CPU-second still compare).
 * The report ({@code media.md} in {@code bench-results/media-<stamp>/}) gives every step and, per relay, the most
 * calls held and the packets relayed per CPU-second there. Runs on the main thread; every process it starts is
 * stopped by its handle.
 */
@Command(name = "sipline bench media", mixinStandardHelpOptions = true, sortOptions = false,
    description = "SRTP<->RTP media relay load, Sipline against rtpengine (userspace) in the same run: most calls "
        + "held, CPU per 1,000 packets, allocated bytes per packet, added latency and jitter.")
public final class MediaBench implements Callable<Integer>
{
    @Option(names = "--calls", paramLabel = "LIST", split = ",", defaultValue = "50,100,200,400,800,1600",
        description = "the steps of concurrent calls (default 50,100,200,400,800,1600)")
    List<Integer> steps;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "20",
        description = "measured seconds of each step (default 20)")
    int seconds;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "10",
        description = "seconds of load before each step's measurement, for the JIT (default 10)")
    int warmup;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "2",
        description = "media threads of each relay (Sipline's media threads, rtpengine's --num-threads; default 2)")
    int threads;

    @Option(names = "--relays", paramLabel = "LIST", split = ",", defaultValue = "sipline,rtpengine",
        description = "the relays to run (default sipline,rtpengine)")
    List<String> relays;

    @Option(names = "--keep-going",
        description = "run every step for every relay, held or not (default: a relay leaves at its first step "
            + "not held)")
    boolean keepGoing;

    @Option(names = "--rtpengine", paramLabel = "PATH", defaultValue = "/usr/bin/rtpengine",
        description = "the rtpengine binary (Debian package rtpengine-daemon; default /usr/bin/rtpengine)")
    String rtpengine;

    @Option(names = "--profile", paramLabel = "NAME", defaultValue = "zgc",
        description = "JVM profile of the Sipline relay's process, as bin/sipline run takes it (default zgc)")
    String profile;

    @Mixin
    SiplineJvmArgs siplineJvmArgs = new SiplineJvmArgs();

    @Mixin
    HarnessOptions harness;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new MediaBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        final Path dir = harness.resultDir("media-");
        final Map<String, RelayProcess> running = new LinkedHashMap<>();
        final List<MediaRow> rows = new ArrayList<>();
        try
        {
            int base = 30000;
            for (final String r : relays)
            {
                final int ng = Sipp.freeUdpPort();
                final RelayProcess p = switch (r)
                {
                    case "sipline" -> RelayProcess.sipline(harness.layout(), dir, profile,
                        siplineJvmArgs.list(), threads, ng, base, base + 9999);
                    case "rtpengine" -> RelayProcess.rtpengine(rtpengine, dir, threads, ng, base, base + 9999);
                    default -> throw new CommandLine.ParameterException(new CommandLine(this), "unknown relay " + r);
                };
                running.put(r, p);
                p.awaitReady(30_000);
                base += 10000;
            }
            for (final int n : steps)
            {
                for (final Map.Entry<String, RelayProcess> e : new ArrayList<>(running.entrySet()))
                {
                    final MediaRow row = step(e.getValue(), n);
                    rows.add(row);
                    System.out.println("bench media: " + row.markdown());
                    if (!row.held() && !keepGoing)
                    {
                        e.getValue().close();
                        running.remove(e.getKey());
                    }
                }
                if (running.isEmpty())
                {
                    break;
                }
            }
        }
        finally
        {
            for (final RelayProcess p : running.values())
            {
                p.close();
            }
        }
        final String report = MediaReport.markdown(commandLine(), rows);
        Files.writeString(dir.resolve("media.md"), report);
        System.out.println(report);
        System.out.println("bench media: results in " + dir);
        return 0;
    }

    /** One step: N calls anchored, the load, the relay's CPU and counters over the window, the calls deleted. */
    private MediaRow step(final RelayProcess relay, final int calls) throws Exception
    {
        try (MediaLoad load = new MediaLoad(calls))
        {
            final String prefix = relay.name() + "-" + calls + "-" + System.nanoTime() + "-";
            for (int c = 0; c < calls; c++)
            {
                final int[] ports = relay.anchor(prefix + c, load.offer(c), load.answer(c));
                load.connect(c, ports[0], ports[1]);
            }
            final long measure = TimeUnit.SECONDS.toNanos(seconds);
            final long windowStart = load.start(TimeUnit.SECONDS.toNanos(warmup), measure);
            sleepUntil(windowStart);
            final long cpu0 = relay.cpuTicks();
            final long[] counters0 = relay.counters();
            sleepUntil(windowStart + measure);
            final long cpu1 = relay.cpuTicks();
            final long[] counters1 = relay.counters();
            final MediaLoad.Result result = load.finish();
            for (int c = 0; c < calls; c++)
            {
                relay.delete(prefix + c);
            }
            final long relayed = counters0[0] < 0 ? -1 : counters1[0] - counters0[0];
            final long allocated = counters0[1] < 0 ? -1 : counters1[1] - counters0[1];
            return new MediaRow(relay.name(), result, cpu1 - cpu0, ProcFs.CLOCK_TICKS_PER_SECOND, relayed,
                allocated);
        }
    }

    private static void sleepUntil(final long nanoTime)
    {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0)
        {
            LockSupport.parkNanos(left);
        }
    }

    private String commandLine()
    {
        return "bin/sipline bench media --calls " + steps.stream().map(String::valueOf)
            .reduce((a, b) -> a + "," + b).orElse("") + " --seconds " + seconds + " --warmup " + warmup
            + " --threads " + threads + " --relays " + String.join(",", relays) + " --profile " + profile
            + (keepGoing ? " --keep-going" : "")
            + siplineJvmArgs.describe();
    }
}
