package io.sipline.container.logging;

import java.util.LinkedHashMap;
import java.util.Map;

import io.sipline.container.admin.SipMetrics;
import io.sipline.container.dispatch.ContainerServer;
import io.sipline.container.dispatch.ContainerShardImpl;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.stack.SipStack;
import io.sipline.sip.transport.MessageCounters;
import io.sipline.sip.transport.ShardCounters;

/**
 * The classes of refused and failed messages of a running server, named as the {@code reason} and {@code event}
 * labels of {@code /metrics}, with their totals over every shard: what {@link RefusalLog} reads.
 *
 * <p>Threading: {@link #counts} reads the shards' counters from any thread, without a lock, and allocates (once per
 * interval of the log, never on a shard).
 */
public final class ServerRefusals
{
    private static final ParseResult[] PARSE_RESULTS = ParseResult.values();

    private ServerRefusals()
    {
    }

    /** A refusal log of {@code server}'s counters, to the logger, not started. */
    public static RefusalLog log(final ContainerServer server)
    {
        return RefusalLog.toLogger(() -> counts(server), meanings());
    }

    /** The totals so far, by class. */
    static Map<String, Long> counts(final ContainerServer server)
    {
        final Map<String, Long> counts = new LinkedHashMap<>();
        final SipStack stack = server.stack();
        for (int k = 0; k < stack.shardCount(); k++)
        {
            final ShardCounters c = stack.transport().shard(k).snapshot();
            for (final ParseResult r : PARSE_RESULTS)
            {
                if (r.isError())
                {
                    counts.merge(SipMetrics.parseErrorLabel(r), c.parseErrors(r), Long::sum);
                }
            }
            counts.merge("handoff_queue_full", stack.shard(k).traffic().mirrored(MessageCounters.HANDOFF_DROPS),
                Long::sum);
            counts.merge("declined", c.dropped(), Long::sum);
        }
        final ContainerShardImpl.Counters c = server.counters();
        counts.put("no_application", c.noApplication.get());
        counts.put("overloaded", c.overloaded.get());
        counts.put("servlet_error", c.servletErrors.get());
        return counts;
    }

    /** What each class means, for the log line. */
    static Map<String, String> meanings()
    {
        final Map<String, String> meanings = new LinkedHashMap<>();
        for (final ParseResult r : PARSE_RESULTS)
        {
            if (r.isError())
            {
                meanings.put(SipMetrics.parseErrorLabel(r), "malformed, " + r.reasonPhrase()
                    + " (answered " + r.statusCode() + " when it can be)");
            }
        }
        meanings.put("handoff_queue_full", "dropped: the owning shard's queue was full");
        meanings.put("declined", "dropped: no transaction or handler took it");
        meanings.put("no_application", "answered 404: no application takes the request");
        meanings.put("overloaded", "answered 503: it waited longer than --overload-wait, a new INVITE past the "
            + "admission limit, or a REGISTER past its budget");
        meanings.put("servlet_error", "the servlet threw; answered 500 (the first of each kind is logged with its "
            + "stack)");
        return meanings;
    }
}
