package io.sipline.bench.calls;

import java.time.Instant;

/**
 * The outcome of one load step: {@code planned} calls offered at {@code offered} calls/s by sipp's uac through the
 * server to sipp's uas, with what both sipp ends counted, the server's kernel socket drops, its CPU time and GC
 * pauses over the step, the response times the timed scenario logged (sipp's, caller side) and the server's own
 * (its {@code /metrics} histograms, {@link ServerLatency}, all as bucket upper bounds). Immutable.
 *
 * @param label          e.g. {@code r0400}, {@code warmup}, {@code at80}
 * @param completedRate  successful calls / wall seconds of the uac run
 * @param retransmissions sipp's {@code Retransmissions(C)}, uac plus uas
 * @param serverRinging  the server's own INVITE→180 (first 180) over the step
 * @param serverAnswered the server's own INVITE→2xx (first 2xx) over the step
 * @param farEndRinging  the far end's INVITE→180 as the server's INVITE client transactions saw it (socket taking
 *                       the INVITE to the 180's arrival): the part of {@code serverRinging} that is not the server's
 * @param readLag        the server's input lag (arrival to handling) of the messages its shards read themselves
 * @param handoverLag    the same for the messages one shard read and handed over to the call's shard
 * @param drops          datagrams the kernel dropped on the server's and the uas's sockets during the step
 * @param unexpected     late 180s the caller took without aborting the call ({@link Scenarios#KAMAILIO_UAC_OPTIONS})
 * @param cpuPer1000     server CPU seconds (user + system, with its children) per 1,000 successful calls
 * @param serverCores    the server's CPU time over the step divided by its wall time
 * @param machineCores   the whole machine's busy CPU time over the step divided by its wall time: the server, both
 *                       sipp processes and anything else running (other builds on a shared box show up here)
 */
public record Step(String label, int offered, int planned, long successful, long failed, long retransmissions,
    long drops, long unexpected, double seconds, double completedRate, Latency ringing, Latency answered,
    ServerLatency serverRinging, ServerLatency serverAnswered, ServerLatency farEndRinging, ServerLatency readLag,
    ServerLatency handoverLag, GcLog.Summary gc,
    double cpuPer1000, double serverCores, double machineCores, Instant from, Instant to)
{
    /**
     * Sustained: every planned call succeeded, none failed, no retransmission on either sipp, no datagram
     * dropped, and sipp really offered the rate (completed at least 95% of it; sipp shares the cores).
     */
    public boolean sustained()
    {
        return successful == planned && 0 == failed && 0 == retransmissions && 0 == drops
            && completedRate >= 0.95 * offered;
    }
}
