package io.sipline.sip.transport;

import java.util.Arrays;

import io.sipline.sip.message.ParseResult;

/**
 * A snapshot of one shard's counters (or the sum over shards), taken by {@link UdpShardSockets#snapshot()} from any
 * thread. The live counters are plain {@code long} slots that only the owning shard writes; this copy is what metrics
 * read.
 *
 * <p>What counts where, for each datagram read: exactly one of {@link #keepAlives()}, {@link #stun()},
 * {@link #requestsIn()}, {@link #responsesIn()} or {@link #parseErrorsTotal()} goes up, after {@link #datagramsIn()}.
 * {@link #dropped()} counts inbound datagrams discarded without an answer (STUN other than Binding requests, which are
 * answered, responses with no client
 * transaction yet, malformed messages too broken to answer, anything the handler declined); keep-alives and absorbed
 * ACKs need no answer and are not "dropped". {@link #responsesSent()} counts datagrams handed to the socket;
 * {@link #sendFailures()} those that could not be (socket not writable, too large, no usable destination).
 * {@link #errors()} counts exceptions caught on the shard (each distinct one is logged once).
 *
 * <p>Immutable; thread-safe.
 */
public final class ShardCounters
{
    static final int DATAGRAMS_IN = 0;
    static final int KEEP_ALIVES = 1;
    static final int STUN = 2;
    static final int REQUESTS_IN = 3;
    static final int RESPONSES_IN = 4;
    static final int PARSE_ERRORS = 5;
    static final int RESPONSES_SENT = 6;
    static final int SEND_FAILURES = 7;
    static final int DROPPED = 8;
    static final int ERRORS = 9;
    /** First slot of the per-{@link ParseResult} counts, indexed by ordinal. */
    static final int BY_PARSE_RESULT = 10;
    /** Connected peer channels opened, closed, failed to open; peers reported unreachable (ICMP). */
    static final int PEERS_OPENED = BY_PARSE_RESULT + ParseResult.values().length;
    static final int PEERS_CLOSED = PEERS_OPENED + 1;
    static final int PEER_OPEN_FAILURES = PEERS_OPENED + 2;
    static final int PEERS_UNREACHABLE = PEERS_OPENED + 3;
    /** Datagrams read on, and written to, connected peer channels (also counted in the totals above). */
    static final int PEER_DATAGRAMS_IN = PEERS_OPENED + 4;
    static final int PEER_DATAGRAMS_OUT = PEERS_OPENED + 5;
    /** Datagrams sent with the shard's own sendto on a listening socket, and those it left to Netty's write. */
    static final int NATIVE_SENDS = PEERS_OPENED + 6;
    static final int NATIVE_SEND_FALLBACKS = PEERS_OPENED + 7;
    /** Datagrams the shard read itself with recvmsg on a listening socket. */
    static final int NATIVE_DATAGRAMS_IN = PEERS_OPENED + 8;
    /** Datagrams the shard read itself with recvmsg on a connected peer channel. */
    static final int NATIVE_PEER_DATAGRAMS_IN = PEERS_OPENED + 9;
    /** Datagrams whose arrival time is the kernel's ({@code SO_TIMESTAMPNS}) rather than the shard's clock. */
    static final int KERNEL_TIMESTAMPS = PEERS_OPENED + 10;
    static final int SLOTS = KERNEL_TIMESTAMPS + 1;

    private static final ParseResult[] RESULTS = ParseResult.values();

    private final int shard;
    private final long[] values;

    ShardCounters(final int shard, final long[] values)
    {
        this.shard = shard;
        this.values = values;
    }

    /** Sums snapshots (of every shard, say); the result's {@link #shard()} is -1. */
    public static ShardCounters sum(final ShardCounters... snapshots)
    {
        final long[] total = new long[SLOTS];
        for (final ShardCounters s : snapshots)
        {
            for (int i = 0; i < SLOTS; i++)
            {
                total[i] += s.values[i];
            }
        }
        return new ShardCounters(-1, total);
    }

    /** The shard this snapshot is of, or -1 for a sum. */
    public int shard()
    {
        return shard;
    }

    public long datagramsIn()
    {
        return values[DATAGRAMS_IN];
    }

    public long keepAlives()
    {
        return values[KEEP_ALIVES];
    }

    public long stun()
    {
        return values[STUN];
    }

    /** Well-formed requests, ACKs included. */
    public long requestsIn()
    {
        return values[REQUESTS_IN];
    }

    /** Well-formed responses. */
    public long responsesIn()
    {
        return values[RESPONSES_IN];
    }

    /** Datagrams handed to the parser that it rejected, whatever the reason. */
    public long parseErrorsTotal()
    {
        return values[PARSE_ERRORS];
    }

    /** Datagrams the parser rejected for this reason. */
    public long parseErrors(final ParseResult result)
    {
        return values[BY_PARSE_RESULT + result.ordinal()];
    }

    public long responsesSent()
    {
        return values[RESPONSES_SENT];
    }

    public long sendFailures()
    {
        return values[SEND_FAILURES];
    }

    public long dropped()
    {
        return values[DROPPED];
    }

    public long errors()
    {
        return values[ERRORS];
    }

    /** Connected peer channels opened ({@link UdpPeers}). */
    public long peersOpened()
    {
        return values[PEERS_OPENED];
    }

    /** Connected peer channels closed by the shard (idle, evicted for room, unreachable, at close). */
    public long peersClosed()
    {
        return values[PEERS_CLOSED];
    }

    /** Connected peer channels that could not be opened (each distinct cause logged once). */
    public long peerOpenFailures()
    {
        return values[PEER_OPEN_FAILURES];
    }

    /** ICMP port unreachable reports read on connected peer channels (RFC 3261 §18.4). */
    public long peersUnreachable()
    {
        return values[PEERS_UNREACHABLE];
    }

    /** Datagrams read on connected peer channels (part of {@link #datagramsIn()}). */
    public long peerDatagramsIn()
    {
        return values[PEER_DATAGRAMS_IN];
    }

    /** Datagrams written on connected peer channels (part of {@link #responsesSent()}). */
    public long peerDatagramsOut()
    {
        return values[PEER_DATAGRAMS_OUT];
    }

    /**
     * Datagrams the shard sent itself with {@code sendto} on a listening socket (part of {@link #responsesSent()};
     * see {@link UdpShardSockets}, "Sends on a listening socket").
     */
    public long nativeSends()
    {
        return values[NATIVE_SENDS];
    }

    /**
     * Datagrams whose {@code sendto} failed ({@code EAGAIN} or an error) and which went on to Netty's write instead.
     */
    public long nativeSendFallbacks()
    {
        return values[NATIVE_SEND_FALLBACKS];
    }

    /**
     * Datagrams the shard read itself with {@code recvmsg} on a listening socket (part of {@link #datagramsIn()};
     * see {@link UdpShardSockets}, "Reads on a listening socket").
     */
    public long nativeDatagramsIn()
    {
        return values[NATIVE_DATAGRAMS_IN];
    }

    /**
     * Datagrams the shard read itself with {@code recvmsg} on a connected peer channel (part of
     * {@link #peerDatagramsIn()}; the rest of those Netty read, see {@link UdpShardSockets}, "Connected peers").
     */
    public long nativePeerDatagramsIn()
    {
        return values[NATIVE_PEER_DATAGRAMS_IN];
    }

    /**
     * Datagrams whose {@link io.sipline.sip.message.SipMessage#receivedAtNanos()} is the kernel's receive timestamp
     * ({@code SO_TIMESTAMPNS}); every other datagram read got the shard's {@link RealtimeClock} when it was read.
     */
    public long kernelTimestamps()
    {
        return values[KERNEL_TIMESTAMPS];
    }

    /** One line, for logs and the shutdown summary; allocates. */
    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder(160);
        sb.append(shard < 0 ? "all shards" : "shard " + shard)
            .append(": datagrams ").append(datagramsIn())
            .append(", requests ").append(requestsIn())
            .append(", responses in ").append(responsesIn())
            .append(", keep-alives ").append(keepAlives())
            .append(", stun ").append(stun())
            .append(", parse errors ").append(parseErrorsTotal())
            .append(", sent ").append(responsesSent())
            .append(", send failures ").append(sendFailures())
            .append(", dropped ").append(dropped())
            .append(", errors ").append(errors());
        if (peersOpened() > 0 || peerOpenFailures() > 0)
        {
            sb.append(", peer channels opened ").append(peersOpened())
                .append(" closed ").append(peersClosed())
                .append(" failed ").append(peerOpenFailures())
                .append(" unreachable ").append(peersUnreachable())
                .append(", peer datagrams in ").append(peerDatagramsIn())
                .append(" out ").append(peerDatagramsOut());
        }
        if (nativeSends() > 0 || nativeSendFallbacks() > 0)
        {
            sb.append(", sendto ").append(nativeSends()).append(" fallbacks ").append(nativeSendFallbacks());
        }
        if (nativeDatagramsIn() > 0 || nativePeerDatagramsIn() > 0)
        {
            sb.append(", recvmsg ").append(nativeDatagramsIn()).append(" peer ").append(nativePeerDatagramsIn())
                .append(", kernel timestamps ").append(kernelTimestamps());
        }
        if (parseErrorsTotal() > 0)
        {
            sb.append(" (");
            boolean first = true;
            for (final ParseResult r : RESULTS)
            {
                final long n = parseErrors(r);
                if (n > 0)
                {
                    sb.append(first ? "" : ", ").append(r.name()).append(' ').append(n);
                    first = false;
                }
            }
            sb.append(')');
        }
        return sb.toString();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof ShardCounters other && other.shard == shard && Arrays.equals(other.values, values);
    }

    @Override
    public int hashCode()
    {
        return 31 * shard + Arrays.hashCode(values);
    }
}
