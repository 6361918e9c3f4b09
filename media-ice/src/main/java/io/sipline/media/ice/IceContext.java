package io.sipline.media.ice;

import io.sipline.media.stun.StunAddress;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageWriter;
import io.sipline.media.stun.StunPacer;
import io.sipline.media.turn.TurnClient;

import java.security.SecureRandom;
import java.util.SplittableRandom;

/**
 * What every {@link IceAgent} of one media thread shares instead of owning a copy: the integrity engine, the STUN
 * reader and writer, a scratch buffer for outgoing messages, the TURN clients' codec and buffer, and the random
 * sources. Keeping these per thread rather than per session is most of what keeps a session small (PJNATH gives each
 * STUN session its own packet buffer).
 *
 * <p>Not thread-safe; owned by one media thread and used only by the agents running on it.
 */
public final class IceContext implements StunPacer
{
    /** Bytes of the scratch buffer (an ICE check with the longest ufrags RFC 8839 allows fits). */
    public static final int SCRATCH = 1280;

    final StunIntegrity integrity = new StunIntegrity();
    final StunMessageWriter writer = new StunMessageWriter();
    final StunMessageFlyweight message = new StunMessageFlyweight(16, StunAttributeType.BINDING_KNOWN_LOW);
    final StunAddress address = new StunAddress();
    final byte[] scratch = new byte[SCRATCH];
    final TurnClient.Shared turn = new TurnClient.Shared(integrity, UdpEndpoint.MAX_DATAGRAM);
    final SecureRandom secureRandom = new SecureRandom();
    final SplittableRandom random = new SplittableRandom(secureRandom.nextLong());

    /**
     * RFC 8445 §14.2: "Regardless of the Ta value chosen for each agent, the combination of all transactions from all
     * agents (if a given implementation runs several concurrent agents) MUST NOT be sent more often than once every
     * 5 ms". The agents of one media thread share this context, so they take turns here: a connectivity check, a
     * consent check or a gathering request (STUN Binding, TURN Allocate) starts only when {@link #nextPacedMs} is
     * reached, and sets it {@link #pacingMs} later. The agents' TURN clients take their turns here too, for every
     * new transaction (the Allocate, the Allocate retried with credentials, Refresh, CreatePermission,
     * ChannelBind): the context is their {@link StunPacer}. Not under it: retransmissions (part of a transaction
     * already started). Threads do not coordinate (shared nothing): a host running k media threads with ICE starts
     * at most k transactions per 5 ms.
     */
    public static final long PACING_DEFAULT_MS = 5;

    long pacingMs = PACING_DEFAULT_MS;
    /** When the thread's next paced check may leave, on the owners' clock; meaningful once {@link #paced} is set. */
    long nextPacedMs;
    boolean paced;

    /**
     * Sets the shortest interval between two paced checks of all the agents of this context (RFC 8445 §14.2: 5 ms,
     * the default). 0 turns the shared pacing off, leaving each agent to its own Ta: only for test harnesses that
     * start a thousand calls at the same simulated instant and measure something other than time.
     *
     * @param value milliseconds, at least 0.
     * @return this.
     */
    public IceContext pacingMs(final long value)
    {
        pacingMs = Math.max(0, value);
        return this;
    }

    /**
     * RFC 8445 §14.2: takes the thread's turn to start a transaction if the last one left {@link #pacingMs} ago.
     *
     * @param nowMs the owners' clock.
     * @return whether a transaction may start now (the turn is then taken).
     */
    @Override
    public boolean takeTurn(final long nowMs)
    {
        if (paced && nowMs - nextPacedMs < 0)
        {
            return false;
        }
        nextPacedMs = nowMs + pacingMs;
        paced = true;
        return true;
    }

    /**
     * @param nowMs the owners' clock.
     * @return when the thread's next transaction may start.
     */
    @Override
    public long nextTurnMs(final long nowMs)
    {
        return paced && nextPacedMs - nowMs > 0 ? nextPacedMs : nowMs;
    }

    /**
     * @return the thread's integrity engine (also for TURN clients created beside the agents).
     */
    public StunIntegrity integrity()
    {
        return integrity;
    }

    /**
     * @return what the thread's TURN clients share.
     */
    public TurnClient.Shared turn()
    {
        return turn;
    }
}
