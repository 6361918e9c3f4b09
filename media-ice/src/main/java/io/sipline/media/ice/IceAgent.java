package io.sipline.media.ice;

import io.sipline.media.stun.StunClientTransactions;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunRequestSlots;
import io.sipline.media.turn.TurnClient;
import io.sipline.media.turn.TurnResult;

import java.net.InetSocketAddress;

/**
 * An ICE agent (RFC 8445) for one data stream of one or two components (RTP and RTCP; one with RTCP-mux, RFC 5761),
 * full or lite, controlling or controlled, with trickle (RFC 8838) and SDP attributes (RFC 8839). Transport agnostic:
 * datagrams leave through a {@link Transport} that names the local socket and arrive through {@link #onDatagram};
 * time is the owner's millisecond clock, passed to every call, and the owner calls {@link #poll} at
 * {@link #nextDeadlineMs()} or sooner.
 *
 * <p>The agent is the public face and coordinator of its stages, one per step of the path: {@link IceCandidates}
 * (local and remote candidates), {@link IceGatherer} (STUN and TURN gathering, the relays), {@link IceRequests} (our
 * STUN transactions), {@link IceCheckScheduler} (paced and triggered checks, regular nomination),
 * {@link IceIncomingChecks} (the peer's checks, role conflicts), {@link IceCheckResults} (responses, failures, the
 * check-list state) and {@link IceSelection} (selected pairs, consent freshness, freeing unused candidates). ICE
 * restart (§9) is {@link #restart} or new remote credentials.
 *
 * <p>Not implemented: more than one data stream per agent (one agent per stream, sharing the tie-breaker, does the
 * same for the checks but not the cross-stream unfreezing of §6.1.2.6), TCP candidates (RFC 6544), FQDN remote
 * candidates (not paired until resolved, which is left to the owner).
 *
 * <p>Not thread-safe; owned by one media thread, which makes every call. Buffers passed in are borrowed for the call.
 * Allocation: candidates and addresses when they are learnt (setup); nothing per check once warm, nothing per data
 * packet.
 */
public final class IceAgent
{
    /** Gathering or waiting for remote candidates; checks run. */
    public static final int STATE_RUNNING = 0;
    /** Every component has a selected pair. */
    public static final int STATE_COMPLETED = 1;
    /** Every pair failed, or consent was lost. */
    public static final int STATE_FAILED = 2;

    /** RFC 8445 §14.2 default Ta. */
    public static final long TA_DEFAULT_MS = 50;
    /** RFC 7675 §5.1: consent checks every 5 s on average. */
    public static final long CONSENT_INTERVAL_MS = 5_000;
    /** RFC 7675 §5.1: consent expires 30 s after the last answer. */
    public static final long CONSENT_TIMEOUT_MS = 30_000;
    /**
     * RFC 8445 §11: Tr, "Agents SHOULD use a Tr value of 15 seconds": a lite agent sends a keepalive on a selected
     * pair that carried nothing for this long (a full agent's consent checks, every 4-6 s, already do).
     */
    public static final long KEEPALIVE_TR_MS = 15_000;

    /** A check-list pair generated a valid pair. */
    static final byte FLAG_VALID = 1;
    /** A check-list pair's nominated flag (§7.2.5.3.4). */
    static final byte FLAG_NOMINATED = 2;
    /** A check-list pair is in the triggered-check queue (§7.3.1.4). */
    static final byte FLAG_TRIGGERED = 4;
    /** The peer nominated a pair still being checked: its valid pair is nominated on success (§7.3.1.5). */
    static final byte FLAG_NOMINATE_ON_SUCCESS = 8;
    /** The controlling agent nominates this pair: its next check carries USE-CANDIDATE (§8.1.1). */
    static final byte FLAG_USE_CANDIDATE = 16;

    /**
     * RFC 8445 §8.3.1: "Once ICE processing has reached the Completed state for all peers for media streams using
     * those candidates, the agent SHOULD wait an additional three seconds, and then it MAY cease responding to checks
     * or generating triggered checks on that candidate. It MAY free the candidate at that time." The three seconds
     * let a peer that nominates aggressively change its selected pair just after completion.
     */
    static final long FREE_DELAY_MS = 3_000;

    /** Where datagrams leave. Called on the owning thread. */
    @FunctionalInterface
    public interface Transport
    {
        /**
         * @param socket      the owner's socket id given to {@link #addHostCandidate}.
         * @param buf         bytes (borrowed for the call).
         * @param offset      first byte.
         * @param length      bytes.
         * @param destination where to.
         */
        void send(int socket, byte[] buf, int offset, int length, InetSocketAddress destination);
    }

    /** What the owner hears, on the owning thread. Every method has an empty default. */
    public interface Listener
    {
        /**
         * A local candidate was gathered (signal it to the peer when trickling).
         *
         * @param agent     the agent.
         * @param candidate the candidate (owned by the agent; read it during the call).
         */
        default void onLocalCandidate(final IceAgent agent, final IceCandidate candidate)
        {
        }

        /**
         * Nothing more will be gathered (signal end-of-candidates).
         *
         * @param agent the agent.
         */
        default void onGatheringComplete(final IceAgent agent)
        {
        }

        /**
         * A component's selected pair changed.
         *
         * @param agent     the agent.
         * @param component the component id.
         */
        default void onSelected(final IceAgent agent, final int component)
        {
        }

        /**
         * @param agent the agent.
         * @param state {@link #STATE_RUNNING}, {@link #STATE_COMPLETED} or {@link #STATE_FAILED}.
         */
        default void onStateChanged(final IceAgent agent, final int state)
        {
        }

        /**
         * No consent answer for 30 s on a selected pair (RFC 7675 §5.1): sending on it has stopped.
         *
         * @param agent     the agent.
         * @param component the component id.
         */
        default void onConsentLost(final IceAgent agent, final int component)
        {
        }

        /**
         * Application data (not STUN) arrived.
         *
         * @param agent     the agent.
         * @param component the component id of the local candidate it arrived on.
         * @param buf       bytes (valid during the call).
         * @param offset    first byte.
         * @param length    bytes.
         */
        default void onData(final IceAgent agent, final int component, final byte[] buf, final int offset,
            final int length)
        {
        }
    }

    final IceContext context;
    final IceLimits limits;
    final Transport transport;
    final Listener listener;
    private final int components;
    private final boolean lite;
    private long tieBreaker;
    private boolean controlling;
    private int state = STATE_RUNNING;
    /** The owner's clock at the current call. */
    long now;
    boolean remoteEndOfCandidates;
    private boolean restartPending;

    final IceCheckList list;
    final IceValidList valid;
    final IceCandidates candidates;
    final IceCredentials credentials;
    final IceSelection selection;

    // The state of the stateless stages, one copy per session; each stage reads and writes it through the agent it is
    // given, so a session holds no stage objects.

    // IceRequests: our STUN transactions.
    /** Initial RTO of our requests. */
    long rtoMs = StunClientTransactions.RTO_DEFAULT_MS;
    StunRequestSlots requestSlots;
    /** First transmissions of checks and consent checks. */
    long checksSent;

    // IceGatherer: server-reflexive and relayed candidates.
    InetSocketAddress stunServer;
    /** Per component (index 1..components): its TURN client, or null; null when there is none at all. */
    TurnClient[] turn;
    /** Per component and peer slot: the peer's JDK address, made once (a slot never changes address). */
    InetSocketAddress[] turnPeers;
    int pendingGathers;
    boolean gatheringStarted;
    /** Gathering transactions to start: host indices below this get a STUN Binding. */
    int gatherHosts;
    /** The next gathering transaction: a host index below {@link #gatherHosts}, then a TURN Allocate per component. */
    int gatherCursor;
    boolean gatheringComplete;

    // IceCheckScheduler: pacing and nomination.
    boolean aggressive;
    long nominationWaitMs = 1_000;
    /** Ta in use: the larger of ours and the peer's (RFC 8445 §14.2, RFC 8839 §5.5). */
    long taMs = TA_DEFAULT_MS;
    /** Our proposed Ta. */
    long localTaMs = TA_DEFAULT_MS;
    /** The peer's proposed Ta (its {@code ice-pacing}, 50 ms when it sent none). */
    long remoteTaMs = TA_DEFAULT_MS;
    long nextCheckMs;
    /** When every component first had a valid pair (the nomination wait starts), or never. */
    long allValidSinceMs = Long.MAX_VALUE;

    // IceIncomingChecks: the peer's checks.
    /** Checks answered with a success. */
    long checksAnswered;

    /**
     * @param context     the media thread's shared context.
     * @param limits      candidate and pair limits (arrays are allocated once at these sizes).
     * @param components  1 (RTP, or RTP and RTCP multiplexed) or 2 (RTP and RTCP).
     * @param lite        an ICE lite agent (§2.5: host candidates only, no checks, always controlled).
     * @param controlling the initial role (ignored for a lite agent).
     * @param transport   where datagrams leave.
     * @param listener    who hears outcomes.
     */
    public IceAgent(final IceContext context, final IceLimits limits, final int components, final boolean lite,
        final boolean controlling, final Transport transport, final Listener listener)
    {
        if (components < 1 || components > limits.maxComponents() || components > 2)
        {
            throw new IllegalArgumentException("components must be 1 or 2 within the limits: " + components);
        }
        this.context = context;
        this.limits = limits;
        this.transport = transport;
        this.listener = listener;
        this.components = components;
        this.lite = lite;
        this.controlling = !lite && controlling;
        this.tieBreaker = context.secureRandom.nextLong();
        candidates = new IceCandidates(this, limits);
        list = new IceCheckList(limits);
        list.reset(candidates.locals, candidates.remotes);
        valid = new IceValidList(limits);
        valid.reset(candidates.locals, candidates.remotes);
        credentials = new IceCredentials();
        requestSlots = IceRequests.newSlots(this);
        selection = new IceSelection(this, components);
        credentials.newLocal(context.secureRandom);
    }

    // ------------------------------------------------------------------------------------------------ settings

    /**
     * @param value use aggressive nomination (every check of the controlling agent carries USE-CANDIDATE).
     * @return this.
     */
    public IceAgent aggressiveNomination(final boolean value)
    {
        aggressive = value;
        return this;
    }

    /**
     * Proposes Ta, the pacing interval (RFC 8445 §14.2: "If an agent wants to use a Ta value other than the default
     * value, the agent MUST indicate the proposed value to its peer during the establishment of the ICE session. Both
     * agents MUST use the higher value of the proposed values"): written as {@code a=ice-pacing} in
     * {@link #localDescription()} when not 50 ms; the Ta used is the larger of this and the peer's (50 ms if it
     * proposes none), so a value under 50 ms takes effect only if the peer proposes one too.
     *
     * @param value milliseconds, at least 5.
     * @return this.
     */
    public IceAgent ta(final long value)
    {
        IceCheckScheduler.localTa(this, value);
        return this;
    }

    /**
     * @param value initial RTO of checks (RFC 8445 §14.3 asks for at least 500 ms; tests may go lower).
     * @return this.
     */
    public IceAgent rto(final long value)
    {
        IceRequests.rto(this, value);
        return this;
    }

    /**
     * @param value longest wait, once every component has a valid pair, for better pairs before nominating.
     * @return this.
     */
    public IceAgent nominationWaitMs(final long value)
    {
        nominationWaitMs = Math.max(0, value);
        return this;
    }

    /**
     * Sets our credentials instead of random ones (tests, or an owner that chooses them).
     *
     * @param ufrag    4-256 ice-chars.
     * @param password 22-256 ice-chars.
     * @return this.
     */
    public IceAgent localCredentials(final String ufrag, final String password)
    {
        credentials.local(ufrag, password);
        return this;
    }

    /** Sets the tie-breaker (RFC 8445 §7.1.3) instead of a random one; tests only. */
    IceAgent tieBreaker(final long value)
    {
        tieBreaker = value;
        return this;
    }

    /** @return the current tie-breaker. */
    long tieBreaker()
    {
        return tieBreaker;
    }

    /** §7.2.5.1: after a 487 "The agent MUST change the tiebreaker value". */
    void newTieBreaker()
    {
        tieBreaker = context.secureRandom.nextLong();
    }

    // ------------------------------------------------------------------------------------------------ gathering

    /**
     * Adds a host candidate (RFC 8445 §5.1.1.1) on a socket the owner has bound.
     *
     * @param component component id (1 or 2).
     * @param socket    the owner's id for the socket, handed back to {@link Transport#send}.
     * @param address   the bound address (not a wildcard).
     * @return the candidate, or null when the local limit is reached.
     */
    public IceCandidate addHostCandidate(final int component, final int socket, final InetSocketAddress address)
    {
        checkComponent(component);
        return candidates.addHost(component, socket, address);
    }

    /**
     * Starts gathering server-reflexive and relayed candidates; host candidates must be added first. A lite agent
     * gathers nothing more (§2.5). Call it even with no servers (all nulls): it is what ends gathering, and an agent
     * only declares failure once its own gathering and the peer's candidates (end-of-candidates) are complete.
     *
     * @param stun         STUN server for server-reflexive candidates, or null.
     * @param turnServer   TURN server for relayed candidates, or null.
     * @param turnUser     TURN username.
     * @param turnPassword TURN password.
     * @param nowMs        the owner's clock.
     */
    public void gather(final InetSocketAddress stun, final InetSocketAddress turnServer, final String turnUser,
        final String turnPassword, final long nowMs)
    {
        now = nowMs;
        IceGatherer.gather(this, stun, turnServer, turnUser, turnPassword);
    }

    // ------------------------------------------------------------------------------------------------ SDP

    /**
     * Our ICE attributes as SDP lines (RFC 8839): ufrag, password, options (trickle), ice-lite, candidates, and
     * end-of-candidates once gathering is complete. Allocates (signalling path).
     *
     * @return CRLF-terminated {@code a=} lines.
     */
    public String localDescription()
    {
        return IceDescriptions.local(this);
    }

    /**
     * Applies the peer's ICE attributes (one media section's or the session's lines): credentials, ice-lite,
     * candidates, end-of-candidates. New credentials on an agent that already had some are an ICE restart (§9).
     *
     * @param sdp   SDP text (lines other than ICE attributes are ignored).
     * @param nowMs the owner's clock.
     * @throws IceParseException when an ICE attribute is malformed (nothing is applied then).
     */
    public void applyRemoteDescription(final String sdp, final long nowMs) throws IceParseException
    {
        now = nowMs;
        final IceSessionAttributes attributes = new IceSessionAttributes();
        final IceCandidate[] parsed = IceDescriptions.parseRemote(sdp, attributes);
        IceCheckScheduler.remoteTa(this, attributes.pacingMs());
        if (attributes.lite() && !lite)
        {
            setRole(true); // §6.1.1: with a lite peer the full agent controls
        }
        setRemoteCredentials(attributes.ufrag(), attributes.password());
        for (int i = 0; i < parsed.length && null != parsed[i]; i++)
        {
            candidates.addRemote(parsed[i]);
        }
        if (attributes.endOfCandidates())
        {
            remoteEndOfCandidates = true;
        }
    }

    /**
     * Adds a trickled remote candidate (RFC 8838).
     *
     * @param line an {@code a=candidate:} line.
     * @return whether it was added (false: the remote limit is reached, or it is a duplicate).
     * @throws IceParseException when malformed.
     */
    public boolean addRemoteCandidate(final String line) throws IceParseException
    {
        return candidates.addRemote(IceSdp.parseCandidate(line));
    }

    /**
     * The peer signalled end-of-candidates (RFC 8838 §13): pairs failing now can fail the agent.
     */
    public void remoteEndOfCandidates()
    {
        remoteEndOfCandidates = true;
    }

    /**
     * ICE restart (RFC 8445 §9): new local ufrag and password, the remote side forgotten (send the new
     * {@link #localDescription()}). Local candidates are kept; data keeps flowing on the selected pairs until new
     * ones are selected.
     */
    public void restart()
    {
        credentials.newLocal(context.secureRandom);
        forgetRemote();
        restartPending = true;
    }

    // ------------------------------------------------------------------------------------------------ datagrams

    /**
     * Offers a datagram received on one of the owner's sockets.
     *
     * @param socket the socket id.
     * @param buf    bytes (borrowed for the call).
     * @param offset first byte.
     * @param length bytes.
     * @param from   the sender.
     * @param nowMs  the owner's clock.
     */
    public void onDatagram(final int socket, final byte[] buf, final int offset, final int length,
        final InetSocketAddress from, final long nowMs)
    {
        now = nowMs;
        final int host = candidates.hostOfSocket(socket);
        if (-1 == host)
        {
            return;
        }
        if (IceGatherer.onServerDatagram(this, candidates.locals[host].componentId(), from, buf, offset, length))
        {
            return;
        }
        onPeerDatagram(host, from, -1, buf, offset, length);
    }

    /**
     * Sends application data on a component's selected pair (through the relay when its local candidate is
     * relayed).
     *
     * @param component the component id.
     * @param buf       bytes (borrowed for the call).
     * @param offset    first byte.
     * @param length    bytes.
     * @return whether it was sent (false: no selected pair, or consent lost).
     */
    public boolean send(final int component, final byte[] buf, final int offset, final int length)
    {
        return selection.send(component, buf, offset, length);
    }

    /**
     * Runs what is due: retransmissions, the next paced check, nomination, consent, TURN refreshes.
     *
     * @param nowMs the owner's clock.
     */
    public void poll(final long nowMs)
    {
        now = nowMs;
        IceRequests.poll(this);
        IceGatherer.poll(this);
        IceGatherer.startDue(this);
        IceCheckScheduler.poll(this);
        selection.poll();
        IceCheckResults.checkFailure(this);
    }

    /**
     * @return when {@link #poll} next has something to do.
     */
    public long nextDeadlineMs()
    {
        long next = requestSlots.nextDeadlineMs();
        if (IceGatherer.hasDue(this))
        {
            next = Math.min(next, context.paced ? context.nextPacedMs : now); // gathering transactions still to start
        }
        next = IceCheckScheduler.nextDeadlineMs(this, next);
        next = selection.nextDeadlineMs(next);
        return IceGatherer.nextDeadlineMs(this, next);
    }

    /**
     * Deletes the TURN allocations (Refresh with lifetime 0) and stops checks; the agent is finished.
     *
     * @param nowMs the owner's clock.
     */
    public void close(final long nowMs)
    {
        now = nowMs;
        IceGatherer.close(this);
        setState(STATE_FAILED);
    }

    // ------------------------------------------------------------------------------------------------ accessors

    /** @return {@link #STATE_RUNNING}, {@link #STATE_COMPLETED} or {@link #STATE_FAILED}. */
    public int state()
    {
        return state;
    }

    /** @return whether this agent is controlling. */
    public boolean controlling()
    {
        return controlling;
    }

    /** @return whether this is a lite agent. */
    public boolean lite()
    {
        return lite;
    }

    /** @return the number of components. */
    public int components()
    {
        return components;
    }

    /** @return our ufrag. */
    public String localUfrag()
    {
        return credentials.localUfrag;
    }

    /** @return our password. */
    public String localPassword()
    {
        return credentials.localPassword;
    }

    /** @return local candidates gathered (including peer-reflexive ones). */
    public int localCandidateCount()
    {
        return candidates.localCount;
    }

    /**
     * @param index below {@link #localCandidateCount()}.
     * @return a local candidate.
     */
    public IceCandidate localCandidate(final int index)
    {
        return candidates.locals[index];
    }

    /** @return remote candidates known (including peer-reflexive ones). */
    public int remoteCandidateCount()
    {
        return candidates.remoteCount;
    }

    /**
     * @param index below {@link #remoteCandidateCount()}.
     * @return a remote candidate.
     */
    public IceCandidate remoteCandidate(final int index)
    {
        return candidates.remotes[index];
    }

    /** @return the check list (read it; do not change it). */
    public IceCheckList checkList()
    {
        return list;
    }

    /** @return the valid list (read it; do not change it). */
    public IceValidList validList()
    {
        return valid;
    }

    /** @return whether gathering has finished. */
    public boolean gatheringComplete()
    {
        return gatheringComplete;
    }

    /**
     * @param component the component id.
     * @return the local candidate of the selected pair, or null.
     */
    public IceCandidate selectedLocal(final int component)
    {
        return selection.local(component);
    }

    /**
     * @param component the component id.
     * @return the priority of the selected pair (RFC 8445 §6.1.2.3, from the valid pair's candidates), or 0.
     */
    public long selectedPriority(final int component)
    {
        return selection.priority(component);
    }

    /**
     * @param component the component id.
     * @return the remote address of the selected pair, or null.
     */
    public InetSocketAddress selectedRemote(final int component)
    {
        return selection.remote(component);
    }

    /** @return connectivity checks sent (first transmissions, not retransmissions; consent checks included). */
    public long checksSent()
    {
        return checksSent;
    }

    /** @return checks we answered. */
    public long checksAnswered()
    {
        return checksAnswered;
    }

    /**
     * @param component the component id.
     * @return the TURN client of that component, or null.
     */
    public TurnClient turnClient(final int component)
    {
        return IceGatherer.client(this, component);
    }

    // ------------------------------------------------------------------------------------------------ stages' calls

    /** §14.2: whether this thread's agents may start a transaction now (the last one left at least 5 ms ago). */
    boolean pacingTurnFree()
    {
        return context.nextTurnMs(now) - now <= 0;
    }

    /** §14.2: a transaction of this thread leaves now; the next one waits {@link IceContext#pacingMs}. */
    void takePacingTurn()
    {
        context.takeTurn(now);
    }

    void setRole(final boolean value)
    {
        if (controlling != value)
        {
            controlling = value;
            list.recomputePriorities(controlling);
        }
    }

    void setState(final int value)
    {
        if (state != value)
        {
            if (STATE_COMPLETED == value)
            {
                selection.onCompleted(); // §8.3.1
            }
            state = value;
            listener.onStateChanged(this, value);
        }
    }

    /**
     * Sends from local candidate {@code local}: through its TURN relay when relayed, else from its socket.
     *
     * @param buf bytes (borrowed for the call).
     * @return whether it was sent.
     */
    boolean sendFrom(final int local, final InetSocketAddress to, final int turnSlot, final byte[] buf,
        final int offset, final int length)
    {
        final IceCandidate candidate = candidates.locals[local];
        if (IceCandidateType.RELAYED == candidate.type())
        {
            final TurnClient client = turn[candidate.componentId()];
            return turnSlot >= 0 && TurnResult.OK == client.send(turnSlot, buf, offset, length);
        }
        transport.send(candidates.localSocket[local], buf, offset, length, to);
        return true;
    }

    /**
     * A datagram from the peer on local candidate {@code local} (a host socket, or a relay's peer slot): application
     * data goes to the listener, Binding requests and responses to their stages.
     *
     * @param buf bytes (borrowed for the call).
     */
    void onPeerDatagram(final int local, final InetSocketAddress from, final int turnSlot, final byte[] buf,
        final int offset, final int length)
    {
        final StunMessageFlyweight message = context.message;
        if (length < StunMessageFlyweight.HEADER_LENGTH || !StunMessageFlyweight.isStun(buf, offset, length))
        {
            listener.onData(this, candidates.locals[local].componentId(), buf, offset, length);
            return;
        }
        final int wrap = message.wrap(buf, offset, length);
        if (wrap < 0)
        {
            return;
        }
        final int type = message.messageType();
        if (StunMessageType.BINDING_REQUEST == type)
        {
            IceIncomingChecks.onRequest(this, local, from, turnSlot, wrap);
        }
        else if (StunMessageType.isResponse(type) && StunMessageType.METHOD_BINDING == message.method())
        {
            IceCheckResults.onResponse(this, local, from);
        }
    }

    // ------------------------------------------------------------------------------------------------ internals

    private void checkComponent(final int component)
    {
        if (component < 1 || component > components)
        {
            throw new IllegalArgumentException("component out of 1.." + components + ": " + component);
        }
    }

    private void setRemoteCredentials(final String ufrag, final String password)
    {
        if (credentials.remoteChanged(ufrag, password))
        {
            if (!restartPending)
            {
                credentials.newLocal(context.secureRandom); // §9: the peer restarted; the answer carries new ones too
            }
            forgetRemote();
        }
        restartPending = false;
        credentials.remote(ufrag, password);
        if (STATE_FAILED != state && !selection.hasSelected(1))
        {
            setState(STATE_RUNNING);
        }
    }

    /** §9: the remote side of this ICE generation is forgotten; the selected pairs stay in use. */
    private void forgetRemote()
    {
        IceRequests.freeChecks(this);
        candidates.forgetRemotes();
        remoteEndOfCandidates = false;
        list.reset(candidates.locals, candidates.remotes);
        valid.reset(candidates.locals, candidates.remotes); // §9: the valid pairs go with the check list
        IceCheckScheduler.restart(this);
        selection.restart();
        if (STATE_FAILED != state)
        {
            state = STATE_RUNNING; // keep sending on the old selected pairs until new ones are selected
        }
    }
}
