package io.sipline.media.ice;

import io.sipline.media.stun.StunAddress;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunClientTransactions;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;
import io.sipline.media.stun.StunRequestSlots;
import io.sipline.media.stun.StunResult;
import io.sipline.media.turn.TurnClient;
import io.sipline.media.turn.TurnResult;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * An ICE agent (RFC 8445) for one data stream of one or two components (RTP and RTCP; one with RTCP-mux, RFC 5761),
 * full or lite, controlling or controlled. Transport agnostic: datagrams leave through a {@link Transport} that names
 * the local socket, arrive through {@link #onDatagram}, and time is the owner's millisecond clock, passed to every
 * call; the owner calls {@link #poll} at {@link #nextDeadlineMs()} or sooner.
 *
 * <p>What it does:
 * <ul>
 *   <li>Gathering (§5.1.1): host candidates are given by the owner ({@link #addHostCandidate}, one socket each);
 *       server-reflexive ones come from a STUN Binding to a server, relayed ones from a {@link TurnClient} per
 *       component over the component's first host socket. Redundant candidates are dropped (§5.1.3); every new one
 *       is reported at once (trickle, RFC 8838), and the end of gathering is reported once nothing is pending.</li>
 *   <li>Checks (§6.1.4, §7.2): one check list ({@link IceCheckList}) for the stream, one check per Ta (50 ms by
 *       default): a triggered pair first, else the highest Waiting pair, else a Frozen pair unfrozen (§6.1.4.2);
 *       the agents of one {@link IceContext} (one media thread) together start at most one transaction per 5 ms —
 *       check, consent check, or gathering request (§14.2).
 *       Requests are not copied for retransmission: their state (transaction id, schedule) is kept per slot and the
 *       message is written again for each retransmission (RFC 8489 §6.2.1 schedule, RTO 500 ms).</li>
 *   <li>Answers (§7.3): integrity with our password, role conflicts by {@link IceRoleConflict} (487 or switch),
 *       peer-reflexive remote candidates learnt from the source (§7.3.1.3), triggered checks (§7.3.1.4; an
 *       In-Progress pair's transaction is cancelled — no more retransmissions, a late answer still counts).</li>
 *   <li>Responses (§7.2.5): symmetric addresses required; a success adds a valid pair to the valid list
 *       ({@link IceValidList}, apart from the check list, §7.2.5.3.2): its local candidate is the one equal to
 *       XOR-MAPPED-ADDRESS (a server-reflexive one behind a NAT, or a peer-reflexive one learnt then, §7.2.5.3.1),
 *       its remote candidate the one checked; pairs of the same foundation unfrozen, 487 switches role and
 *       retries.</li>
 *   <li>Nomination (§8.1): the controlling agent nominates the best valid pair (§6.1.2.3 priority of its own
 *       candidates) of each component, by repeating with USE-CANDIDATE the check of the check-list pair that
 *       generated it, once every component has one and no better pair is still being checked (or after
 *       {@link #nominationWaitMs(long)}); with aggressive nomination every check carries USE-CANDIDATE (RFC 5245
 *       style). The controlled agent selects what is nominated (§7.3.1.5); a lite agent selects the pair an
 *       incoming nominating check arrived on. The nominated flag is set on the valid pair and on its generating
 *       pair (§7.2.5.3.4); the selected pair is the valid pair, whose data and consent checks leave from its base
 *       (the generating pair's local candidate). A nomination whose check fails (timeout, error response,
 *       non-symmetric answer) removes its pair from the valid list, fails the pair and fails the check list
 *       (§7.2.5.3.4), hence the agent; see {@code checkFailed} for the RFC 5245 cases that only fail the pair.</li>
 *   <li>Check list state (§7.2.5.4): once every pair is Failed or Succeeded and some component has no valid pair
 *       (with trickle, after both sides finished gathering), the agent fails.</li>
 *   <li>Consent freshness (RFC 7675): a full agent sends a check on each selected pair every 5 s ± 20 % and stops
 *       (state {@link #STATE_FAILED}, {@link Listener#onConsentLost}) when none was answered for 30 s. A lite agent,
 *       which sends no checks, keeps its selected pairs alive with a Binding Indication when nothing was sent on
 *       one for Tr = 15 s (RFC 8445 §11).</li>
 *   <li>ICE restart (§9): {@link #restart} changes our ufrag and password and forgets the remote side; new remote
 *       credentials on a running agent restart it too. Data keeps flowing on the old selected pair until a new
 *       one is selected.</li>
 *   <li>SDP (RFC 8839): {@link #localDescription()} and {@link #applyRemoteDescription}, trickled lines through
 *       {@link #addRemoteCandidate(String)} and {@link #remoteEndOfCandidates()}.</li>
 * </ul>
 *
 * <p>Not implemented: more than one data stream per agent (one agent per stream, sharing the tie-breaker, does the
 * same for the checks but not the cross-stream unfreezing of §6.1.2.6), TCP candidates (RFC 6544), FQDN remote
 * candidates (not paired until resolved, which is left to the owner).
 *
 * <p>Not thread-safe; owned by one media thread, which makes every call. Allocation: candidates and addresses when
 * they are learnt (setup); nothing per check once warm, nothing per data packet.
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

    private static final byte FLAG_VALID = 1;
    /** A check-list pair's nominated flag (§7.2.5.3.4); package-private for tests. */
    static final byte FLAG_NOMINATED = 2;
    private static final byte FLAG_TRIGGERED = 4;
    private static final byte FLAG_NOMINATE_ON_SUCCESS = 8;
    private static final byte FLAG_USE_CANDIDATE = 16;

    private static final byte KIND_CHECK = 1;
    private static final byte KIND_CONSENT = 2;
    private static final byte KIND_SRFLX = 3;

    private static final int TURN_PEERS = 4;
    /**
     * RFC 8445 §8.3.1: "Once ICE processing has reached the Completed state for all peers for media streams using
     * those candidates, the agent SHOULD wait an additional three seconds, and then it MAY cease responding to checks
     * or generating triggered checks on that candidate. It MAY free the candidate at that time." The three seconds
     * let a peer that nominates aggressively change its selected pair just after completion.
     */
    static final long FREE_DELAY_MS = 3_000;
    private static final int RC = 7;
    private static final int RM = 16;
    private static final char[] ICE_CHARS =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray();

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

    private final IceContext context;
    private final IceLimits limits;
    private final Transport transport;
    private final Listener listener;
    private final int components;
    private final boolean lite;
    private long tieBreaker;

    private boolean controlling;
    private boolean aggressive;
    /** Ta in use: the larger of ours and the peer's (RFC 8445 §14.2, RFC 8839 §5.5). */
    private long taMs = TA_DEFAULT_MS;
    /** Our proposed Ta. */
    private long localTaMs = TA_DEFAULT_MS;
    /** The peer's proposed Ta (its {@code ice-pacing}, 50 ms when it sent none). */
    private long remoteTaMs = TA_DEFAULT_MS;
    private long rtoMs = StunClientTransactions.RTO_DEFAULT_MS;
    private long nominationWaitMs = 1_000;

    private String localUfrag;
    private String localPassword;
    private StunCredential localKey;
    private byte[] localUsernamePrefix;
    private String remoteUfrag;
    private String remotePassword;
    private StunCredential remoteKey;
    private byte[] checkUsername;
    private boolean remoteLite;
    private boolean remoteEndOfCandidates;
    private boolean restartPending;

    private final IceCandidate[] locals;
    private final int[] localSocket;
    private int localCount;
    private final IceCandidate[] remotes;
    private final InetSocketAddress[] remoteAddress;
    private int remoteCount;
    private final IceCheckList list;
    private final IceValidList valid;
    private final IceFoundations foundations;

    private StunRequestSlots requests;

    private InetSocketAddress stunServer;
    private TurnClient[] turn;
    private InetSocketAddress[] turnPeers;
    private int pendingGathers;
    private boolean gatheringStarted;
    /** Gathering transactions to start (§14.2: paced like checks): host indices below this get a STUN Binding. */
    private int gatherHosts;
    /** The next gathering transaction: a host index below {@link #gatherHosts}, then one TURN Allocate per component. */
    private int gatherCursor;
    private boolean gatheringComplete;

    /** Per component: the selected pair's base (the generating pair's local candidate), which sends its data. */
    private final int[] selectedBase;
    /** Per component: the selected (valid) pair's local candidate, as reported (§7.2.5.3.2). */
    private final int[] selectedLocal;
    private final InetSocketAddress[] selectedRemote;
    private final int[] selectedTurnSlot;
    private final long[] selectedPriority;
    private final long[] consentLastMs;
    /**
     * Per component: when the next consent check is due (full agent), or when a keepalive is due if nothing is sent
     * before (lite agent, §11).
     */
    private final long[] consentNextMs;
    private int state = STATE_RUNNING;
    private long nextCheckMs;
    private long allValidSinceMs = Long.MAX_VALUE;
    /** §8.3.1: when the candidates of no selected pair are freed (3 s after completion), or never. */
    private long freeAtMs = Long.MAX_VALUE;
    /** §8.3.1: the candidates of no selected pair are freed; only the selected pairs are answered. */
    private boolean freed;
    private long now;
    private long checksSent;
    private long checksAnswered;

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
        locals = new IceCandidate[limits.maxLocalCandidates()];
        localSocket = new int[limits.maxLocalCandidates()];
        remotes = new IceCandidate[limits.maxRemoteCandidates()];
        remoteAddress = new InetSocketAddress[limits.maxRemoteCandidates()];
        list = new IceCheckList(limits);
        list.reset(locals, remotes);
        valid = new IceValidList(limits);
        valid.reset(locals, remotes);
        foundations = new IceFoundations(limits.maxLocalCandidates());
        requests = newRequests();
        selectedBase = new int[components + 1];
        selectedLocal = new int[components + 1];
        selectedRemote = new InetSocketAddress[components + 1];
        selectedTurnSlot = new int[components + 1];
        selectedPriority = new long[components + 1];
        consentLastMs = new long[components + 1];
        consentNextMs = new long[components + 1];
        java.util.Arrays.fill(selectedBase, -1);
        java.util.Arrays.fill(selectedLocal, -1);
        newLocalCredentials();
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
        localTaMs = Math.max(5, value);
        taMs = Math.max(localTaMs, remoteTaMs);
        return this;
    }

    /**
     * @param value initial RTO of checks (RFC 8445 §14.3 asks for at least 500 ms; tests may go lower).
     * @return this.
     */
    public IceAgent rto(final long value)
    {
        rtoMs = Math.max(1, value);
        requests = newRequests();
        return this;
    }

    private StunRequestSlots newRequests()
    {
        // In flight at once: up to 8 checks (one leaves per Ta; most are answered within a few Ta), one consent
        // check and one server-reflexive request per component.
        return new StunRequestSlots(Math.min(limits.maxPairs(), 8) + 2 * components, rtoMs, RC, RM);
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
        setLocalCredentials(ufrag, password);
        return this;
    }

    /** Sets the tie-breaker (RFC 8445 §7.1.3) instead of a random one; tests only. */
    IceAgent tieBreaker(final long value)
    {
        tieBreaker = value;
        return this;
    }

    /** @return the current tie-breaker; tests only. */
    long tieBreaker()
    {
        return tieBreaker;
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
        if (localCount == locals.length)
        {
            return null;
        }
        final IceCandidate candidate = new IceCandidate();
        IceAddresses.setAddress(candidate, address);
        final int localPreference = IcePriority.DEFAULT_LOCAL_PREFERENCE - hostsOf(component);
        candidate.set(IceCandidateType.HOST, component,
            IcePriority.candidate(IceCandidateType.HOST, localPreference, component), null);
        candidate.set(IceCandidateType.HOST, component, candidate.priority(),
            foundations.foundationOf(candidate, IceCandidate.FAMILY_NONE, 0, 0));
        return addLocal(candidate, socket);
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
        gatheringStarted = true;
        gatherHosts = 0;
        gatherCursor = 0;
        if (!lite && null != stun)
        {
            stunServer = stun;
            gatherHosts = localCount;
            for (int l = 0; l < localCount; l++)
            {
                if (IceCandidateType.HOST == locals[l].type())
                {
                    pendingGathers++; // started by startGathering, one per pacing turn
                }
            }
        }
        if (!lite && null != turnServer)
        {
            turn = new TurnClient[components + 1];
            turnPeers = new InetSocketAddress[(components + 1) * TURN_PEERS];
            for (int c = 1; c <= components; c++)
            {
                final int host = firstHost(c);
                if (-1 == host)
                {
                    continue;
                }
                final int socket = localSocket[host];
                turn[c] = new TurnClient((buf, off, len, dst) -> transport.send(socket, buf, off, len, dst),
                    turnServer, turnUser, turnPassword, new Relay(c), context.turn, TURN_PEERS).pacer(context);
                pendingGathers++; // allocated by startGathering
            }
        }
        startGathering();
        maybeGatheringComplete();
    }

    /**
     * Starts the gathering transactions that are due, one per pacing turn of the thread (RFC 8445 §14.1: "During the
     * ICE gathering phase ... these transactions are paced at a rate indicated by Ta"; §14.2: all transactions of
     * all agents "MUST NOT be sent more often than once every 5 ms"): a STUN Binding per host candidate, then a TURN
     * Allocate per component. With pacing off ({@link IceContext#pacingMs(long)} 0) they all leave at once.
     */
    private void startGathering()
    {
        final int items = gatherHosts + (null == turn ? 0 : components);
        while (gatherCursor < items)
        {
            final int item = gatherCursor;
            final boolean srflx = item < gatherHosts;
            if (srflx ? IceCandidateType.HOST != locals[item].type() : null == turn[item - gatherHosts + 1])
            {
                gatherCursor++;
                continue;
            }
            if (!pacingTurnFree())
            {
                return;
            }
            gatherCursor++;
            if (srflx)
            {
                takePacingTurn();
            }
            // the TURN client takes the (free) turn for its Allocate itself: it paces all its transactions
            final boolean started = srflx ? startRequest(KIND_SRFLX, item, 0, false) >= 0
                : TurnResult.OK == turn[item - gatherHosts + 1].allocate(0, now);
            if (!started)
            {
                pendingGathers--;
                maybeGatheringComplete();
            }
        }
    }

    /** §14.2: whether this thread's agents may start a transaction now (the last one left at least 5 ms ago). */
    private boolean pacingTurnFree()
    {
        return context.nextTurnMs(now) - now <= 0;
    }

    /** §14.2: a transaction of this thread leaves now; the next one waits {@link IceContext#pacingMs}. */
    private void takePacingTurn()
    {
        context.takeTurn(now);
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
        final StringBuilder out = new StringBuilder(256 + 96 * localCount);
        try
        {
            final IceSessionAttributes attributes = new IceSessionAttributes();
            attributes.ufrag(localUfrag);
            attributes.password(localPassword);
            // RFC 8445 §10: "An agent compliant to this specification MUST inform the peer about the compliance using
            // the 'ice2' option" (which also tells an RFC 5245 peer not to nominate aggressively); trickle: RFC 8838.
            attributes.options(IceSdp.OPTION_TRICKLE | IceSdp.OPTION_ICE2);
            attributes.lite(lite);
            if (TA_DEFAULT_MS != localTaMs)
            {
                attributes.pacingMs(localTaMs);
            }
            attributes.append(out);
        }
        catch (final IceParseException ex)
        {
            throw new IllegalStateException(ex); // our own credentials are always valid
        }
        for (int l = 0; l < localCount; l++)
        {
            if (IceCandidateType.PEER_REFLEXIVE != locals[l].type())
            {
                IceSdp.appendCandidate(out.append("a="), locals[l]).append("\r\n");
            }
        }
        if (gatheringComplete)
        {
            out.append("a=end-of-candidates\r\n");
        }
        return out.toString();
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
        final String[] lines = sdp.split("\r?\n");
        final IceCandidate[] parsed = new IceCandidate[lines.length];
        int candidates = 0;
        for (final String line : lines)
        {
            if (line.startsWith("a=candidate:"))
            {
                parsed[candidates++] = IceSdp.parseCandidate(line);
            }
            else if (line.startsWith("a="))
            {
                attributes.accept(line);
            }
        }
        if (null == attributes.ufrag() || null == attributes.password())
        {
            throw new IceParseException(IceParseException.MALFORMED, "remote description without ice-ufrag and ice-pwd");
        }
        remoteLite = attributes.lite();
        remoteTaMs = 0 == attributes.pacingMs() ? TA_DEFAULT_MS : attributes.pacingMs();
        taMs = Math.max(localTaMs, remoteTaMs);
        if (remoteLite && !lite)
        {
            setRole(true); // §6.1.1: with a lite peer the full agent controls
        }
        setRemoteCredentials(attributes.ufrag(), attributes.password());
        for (int i = 0; i < candidates; i++)
        {
            addRemote(parsed[i]);
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
        return addRemote(IceSdp.parseCandidate(line));
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
        newLocalCredentials();
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
        final int host = hostOfSocket(socket);
        if (-1 == host)
        {
            return;
        }
        final int component = locals[host].componentId();
        if (null != turn && null != turn[component] && from.equals(turn[component].server())
            && turn[component].onDatagram(buf, offset, length, nowMs))
        {
            return; // TURN traffic; anything else from the server (a Binding response to our STUN gathering) goes on
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
        if (component < 1 || component > components || -1 == selectedBase[component] || STATE_FAILED == state)
        {
            return false;
        }
        if (lite)
        {
            consentNextMs[component] = now + KEEPALIVE_TR_MS; // §11: data on the pair keeps the bindings alive
        }
        return sendFrom(selectedBase[component], selectedRemote[component], selectedTurnSlot[component], buf,
            offset, length);
    }

    /**
     * Runs what is due: retransmissions, the next paced check, nomination, consent, TURN refreshes.
     *
     * @param nowMs the owner's clock.
     */
    public void poll(final long nowMs)
    {
        now = nowMs;
        pollRequests();
        if (null != turn)
        {
            for (int c = 1; c <= components; c++)
            {
                if (null != turn[c])
                {
                    turn[c].poll(nowMs);
                }
            }
        }
        startGathering();
        if (!lite && null != remoteKey && STATE_FAILED != state && nowMs - nextCheckMs >= 0)
        {
            if (!pacingTurnFree())
            {
                nextCheckMs = context.nextPacedMs; // §14.2: another transaction of this thread left under 5 ms ago
            }
            else
            {
                nextCheckMs = nowMs + taMs;
                if (controlling && !aggressive)
                {
                    nominate();
                }
                if (paceOneCheck())
                {
                    takePacingTurn();
                }
            }
        }
        if (STATE_COMPLETED == state)
        {
            if (lite)
            {
                keepalive();
            }
            else
            {
                consent();
            }
            if (!freed && nowMs - freeAtMs >= 0 && gatheringComplete)
            {
                freeUnselected();
            }
        }
        if (freed)
        {
            dropClosedRelays();
        }
        checkFailure();
    }

    /**
     * @return when {@link #poll} next has something to do.
     */
    public long nextDeadlineMs()
    {
        long next = requests.nextDeadlineMs();
        if (gatherCursor < gatherHosts + (null == turn ? 0 : components))
        {
            next = Math.min(next, context.paced ? context.nextPacedMs : now); // gathering transactions still to start
        }
        if (!lite && null != remoteKey && STATE_FAILED != state)
        {
            next = Math.min(next, nextCheckMs);
        }
        if (STATE_COMPLETED == state)
        {
            for (int c = 1; c <= components; c++)
            {
                if (-1 != selectedBase[c])
                {
                    next = Math.min(next, consentNextMs[c]);
                }
            }
            if (!freed && gatheringComplete)
            {
                next = Math.min(next, freeAtMs);
            }
        }
        if (null != turn)
        {
            for (int c = 1; c <= components; c++)
            {
                if (null != turn[c])
                {
                    next = Math.min(next, turn[c].nextDeadlineMs());
                }
            }
        }
        return next;
    }

    /**
     * Deletes the TURN allocations (Refresh with lifetime 0) and stops checks; the agent is finished.
     *
     * @param nowMs the owner's clock.
     */
    public void close(final long nowMs)
    {
        now = nowMs;
        if (null != turn)
        {
            for (int c = 1; c <= components; c++)
            {
                if (null != turn[c] && TurnClient.STATE_ALLOCATED == turn[c].state())
                {
                    turn[c].deallocate(nowMs);
                }
            }
        }
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
        return localUfrag;
    }

    /** @return our password. */
    public String localPassword()
    {
        return localPassword;
    }

    /** @return local candidates gathered (including peer-reflexive ones). */
    public int localCandidateCount()
    {
        return localCount;
    }

    /** @return a local candidate. */
    public IceCandidate localCandidate(final int index)
    {
        return locals[index];
    }

    /** @return remote candidates known (including peer-reflexive ones). */
    public int remoteCandidateCount()
    {
        return remoteCount;
    }

    /** @return a remote candidate. */
    public IceCandidate remoteCandidate(final int index)
    {
        return remotes[index];
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
        return -1 == selectedBase[component] ? null : locals[selectedLocal[component]];
    }

    /**
     * @param component the component id.
     * @return the priority of the selected pair (RFC 8445 §6.1.2.3, from the valid pair's candidates), or 0.
     */
    public long selectedPriority(final int component)
    {
        return -1 == selectedBase[component] ? 0 : selectedPriority[component];
    }

    /**
     * @param component the component id.
     * @return the remote address of the selected pair, or null.
     */
    public InetSocketAddress selectedRemote(final int component)
    {
        return selectedRemote[component];
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
        return null == turn ? null : turn[component];
    }

    // ------------------------------------------------------------------------------------------------ internals

    private void checkComponent(final int component)
    {
        if (component < 1 || component > components)
        {
            throw new IllegalArgumentException("component out of 1.." + components + ": " + component);
        }
    }

    private int hostsOf(final int component)
    {
        int n = 0;
        for (int l = 0; l < localCount; l++)
        {
            if (IceCandidateType.HOST == locals[l].type() && locals[l].componentId() == component)
            {
                n++;
            }
        }
        return n;
    }

    private int firstHost(final int component)
    {
        for (int l = 0; l < localCount; l++)
        {
            if (IceCandidateType.HOST == locals[l].type() && locals[l].componentId() == component)
            {
                return l;
            }
        }
        return -1;
    }

    private int hostOfSocket(final int socket)
    {
        for (int l = 0; l < localCount; l++)
        {
            if (localSocket[l] == socket && IceCandidateType.HOST == locals[l].type())
            {
                return l;
            }
        }
        return -1;
    }

    /** Adds a local candidate unless redundant (§5.1.3); pairs it with the remote ones; reports it. */
    private IceCandidate addLocal(final IceCandidate candidate, final int socket)
    {
        for (int l = 0; l < localCount; l++)
        {
            if (locals[l].componentId() == candidate.componentId() && locals[l].sameTransportAddress(candidate)
                && locals[l].sameBase(candidate))
            {
                return null;
            }
        }
        if (localCount == locals.length)
        {
            return null;
        }
        locals[localCount] = candidate;
        localSocket[localCount] = socket;
        localCount++;
        if (remoteCount > 0 && IceCandidateType.PEER_REFLEXIVE != candidate.type())
        {
            list.addPairs(controlling, localCount - 1, -1, localCount, remoteCount, IcePairState.WAITING);
        }
        if (IceCandidateType.PEER_REFLEXIVE != candidate.type())
        {
            listener.onLocalCandidate(this, candidate);
        }
        return candidate;
    }

    private boolean addRemote(final IceCandidate candidate)
    {
        if (remoteCount == remotes.length || candidate.componentId() > components)
        {
            return false;
        }
        for (int r = 0; r < remoteCount; r++)
        {
            if (remotes[r].componentId() == candidate.componentId() && remotes[r].sameTransportAddress(candidate))
            {
                return false;
            }
        }
        remotes[remoteCount] = candidate;
        remoteAddress[remoteCount] = IceAddresses.toInet(candidate);
        remoteCount++;
        // §6.1.2.6 with trickle (RFC 8838 §11): new pairs are Waiting unless a pair of the same foundation is
        // already being checked, which the pacer's unfreezing takes care of.
        list.addPairs(controlling, -1, remoteCount - 1, localCount, remoteCount,
            list.size() == 0 ? IcePairState.WAITING : IcePairState.FROZEN);
        return true;
    }

    private void setRemoteCredentials(final String ufrag, final String password)
    {
        if (null != remoteUfrag && (!remoteUfrag.equals(ufrag) || !remotePassword.equals(password)))
        {
            if (!restartPending)
            {
                newLocalCredentials(); // §9: the peer restarted; the answer carries new credentials too
            }
            forgetRemote();
        }
        restartPending = false;
        remoteUfrag = ufrag;
        remotePassword = password;
        remoteKey = StunCredential.shortTerm(password);
        checkUsername = (ufrag + ":" + localUfrag).getBytes(StandardCharsets.UTF_8);
        if (STATE_FAILED != state && -1 == selectedBase[1])
        {
            setState(STATE_RUNNING);
        }
    }

    private void forgetRemote()
    {
        for (int slot = 0; slot < requests.capacity(); slot++)
        {
            if (requests.busy(slot) && KIND_CHECK == kindOf(requests.token(slot)))
            {
                requests.free(slot);
            }
        }
        for (int r = 0; r < remoteCount; r++)
        {
            remotes[r] = null;
            remoteAddress[r] = null;
        }
        remoteCount = 0;
        remoteEndOfCandidates = false;
        list.reset(locals, remotes);
        valid.reset(locals, remotes); // §9: the valid pairs go with the check list; the selected ones stay in use
        allValidSinceMs = Long.MAX_VALUE;
        freeAtMs = Long.MAX_VALUE;
        freed = false; // §9: the restart checks every pair of what is left (the hosts and the selected candidates)
        if (STATE_FAILED != state)
        {
            state = STATE_RUNNING; // keep sending on the old selected pairs until new ones are selected
        }
        java.util.Arrays.fill(selectedPriority, 0);
    }

    private void newLocalCredentials()
    {
        setLocalCredentials(randomIceChars(8), randomIceChars(24));
    }

    private void setLocalCredentials(final String ufrag, final String password)
    {
        localUfrag = ufrag;
        localPassword = password;
        localKey = StunCredential.shortTerm(password);
        localUsernamePrefix = (ufrag + ":").getBytes(StandardCharsets.UTF_8);
        if (null != remoteUfrag)
        {
            checkUsername = (remoteUfrag + ":" + ufrag).getBytes(StandardCharsets.UTF_8);
        }
    }

    private String randomIceChars(final int n)
    {
        final char[] chars = new char[n];
        for (int i = 0; i < n; i++)
        {
            chars[i] = ICE_CHARS[context.secureRandom.nextInt(ICE_CHARS.length)];
        }
        return new String(chars);
    }

    private void setRole(final boolean value)
    {
        if (controlling != value)
        {
            controlling = value;
            list.recomputePriorities(controlling);
        }
    }

    private void setState(final int value)
    {
        if (state != value)
        {
            if (STATE_COMPLETED == value && !freed)
            {
                freeAtMs = now + FREE_DELAY_MS; // §8.3.1
            }
            state = value;
            listener.onStateChanged(this, value);
        }
    }

    private void maybeGatheringComplete()
    {
        if (gatheringStarted && 0 == pendingGathers && !gatheringComplete)
        {
            gatheringComplete = true;
            listener.onGatheringComplete(this);
        }
    }

    // ---- sending

    private boolean sendFrom(final int local, final InetSocketAddress to, final int turnSlot, final byte[] buf,
        final int offset, final int length)
    {
        if (IceCandidateType.RELAYED == locals[local].type())
        {
            final TurnClient client = turn[locals[local].componentId()];
            return turnSlot >= 0 && TurnResult.OK == client.send(turnSlot, buf, offset, length);
        }
        transport.send(localSocket[local], buf, offset, length, to);
        return true;
    }

    /**
     * The TURN peer slot to reach {@code remote} from relayed candidate {@code local}, binding a channel first when
     * there is none (RFC 8445 §... / RFC 8656 §11: checks from a relayed candidate need a permission); -1 while
     * that is under way.
     */
    private int turnSlotFor(final int local, final int remote)
    {
        final TurnClient client = turn[locals[local].componentId()];
        context.address.set(remoteAddress[remote]);
        final int slot = client.peerSlot(context.address);
        if (slot >= 0 && client.hasPermission(slot))
        {
            return slot;
        }
        client.bindChannel(context.address, now);
        return -1;
    }

    private static long token(final byte kind, final int local, final int remote, final boolean useCandidate,
        final boolean asControlling)
    {
        return kind | (local & 0xFF) << 8 | (remote & 0xFF) << 16 | (useCandidate ? 1 << 24 : 0)
            | (asControlling ? 1 << 25 : 0);
    }

    /**
     * @return whether the request of this transaction carries ICE-CONTROLLING (else ICE-CONTROLLED): the role when it
     *         started, kept for its retransmissions (RFC 8489 §6.2.1 retransmits the same request), so that a 487 to it
     *         is read against what it said (RFC 8445 §7.2.5.1).
     */
    private static boolean asControllingOf(final long token)
    {
        return 0 != (token & 1 << 25);
    }

    private static byte kindOf(final long token)
    {
        return (byte) token;
    }

    private static int localOf(final long token)
    {
        return (int) (token >>> 8) & 0xFF;
    }

    private static int remoteOf(final long token)
    {
        return (int) (token >>> 16) & 0xFF;
    }

    private static boolean useCandidateOf(final long token)
    {
        return 0 != (token & 1 << 24);
    }

    private int startRequest(final byte kind, final int local, final int remote, final boolean useCandidate)
    {
        final int slot = requests.start(token(kind, local, remote, useCandidate, controlling));
        if (-1 == slot)
        {
            return -1;
        }
        if (!transmit(slot))
        {
            requests.free(slot);
            return -1;
        }
        if (KIND_SRFLX != kind)
        {
            checksSent++;
        }
        return slot;
    }

    /** Writes the request of a slot again (same transaction id) and sends it; schedules the next event. */
    private boolean transmit(final int slot)
    {
        final long token = requests.token(slot);
        final int local = localOf(token);
        final int remote = remoteOf(token);
        final StunMessageWriter writer = context.writer.wrap(context.scratch, 0, context.scratch.length)
            .header(StunMessageType.BINDING_REQUEST, requests.tidHigh(slot), requests.tidLow(slot));
        final InetSocketAddress to;
        int turnSlot = -1;
        if (KIND_SRFLX == kindOf(token))
        {
            to = stunServer;
        }
        else
        {
            to = remoteAddress[remote];
            if (null == to || null == remoteKey)
            {
                return false;
            }
            if (IceCandidateType.RELAYED == locals[local].type())
            {
                turnSlot = turnSlotFor(local, remote);
                if (turnSlot < 0)
                {
                    return false;
                }
            }
            final IceCandidate candidate = locals[local];
            // §7.2.2: PRIORITY is what a peer-reflexive candidate from this base would get (§5.1.2.1).
            final int localPreference = (candidate.priority() >>> 8) & 0xFFFF;
            writer.addBytes(StunAttributeType.USERNAME, checkUsername, 0, checkUsername.length)
                .addU32(StunAttributeType.PRIORITY, IcePriority.candidate(IceCandidateType.PEER_REFLEXIVE,
                    localPreference, candidate.componentId()))
                .addU64(asControllingOf(token) ? StunAttributeType.ICE_CONTROLLING : StunAttributeType.ICE_CONTROLLED,
                    tieBreaker);
            if (useCandidateOf(token))
            {
                writer.addEmpty(StunAttributeType.USE_CANDIDATE);
            }
            writer.addMessageIntegrity(context.integrity, remoteKey);
        }
        final int length = writer.addFingerprint(context.integrity).length();
        if (length < 0)
        {
            return false;
        }
        requests.sent(slot, now);
        return sendFrom(local, to, turnSlot, context.scratch, 0, length);
    }

    private void pollRequests()
    {
        for (int slot = requests.due(0, now); slot >= 0; slot = requests.due(slot + 1, now))
        {
            if (requests.shouldRetransmit(slot))
            {
                transmit(slot);
                continue;
            }
            final long token = requests.token(slot);
            final boolean cancelled = requests.cancelled(slot);
            requests.free(slot);
            if (KIND_CHECK == kindOf(token) && !cancelled)
            {
                final int pair = list.find(localOf(token), remoteOf(token));
                if (pair >= 0)
                {
                    checkFailed(pair, useCandidateOf(token), false); // §7.2.5.2.3: the transaction timed out
                }
            }
            else if (KIND_SRFLX == kindOf(token))
            {
                pendingGathers--;
                maybeGatheringComplete();
            }
        }
    }

    // ---- pacing and nomination

    /** @return whether a check left. */
    private boolean paceOneCheck()
    {
        // §6.1.4.2: a triggered pair first, then the highest Waiting one, then a Frozen one unfrozen. A pair that
        // cannot start now (no free slot, or a relayed pair waiting for its TURN channel) yields to the next.
        // §8.1.2: the pairs of a component whose ICE processing concluded are out of the check list and the
        // triggered-check queue (skipped here; see concluded), except the check of a later nomination by an
        // aggressive peer (see triggered).
        for (int p = 0; p < list.size(); p++)
        {
            final byte flags = list.flags(p);
            if (0 != (flags & FLAG_TRIGGERED)
                && (!concluded(list.local(p).componentId())
                    || 0 != (flags & FLAG_NOMINATE_ON_SUCCESS) && IcePairState.SUCCEEDED != list.state(p))
                && startCheck(p))
            {
                return true;
            }
        }
        if (STATE_COMPLETED == state)
        {
            return false; // §8.1.2: checks stop once every component is selected (consent takes over)
        }
        for (int p = 0; p < list.size(); p++)
        {
            if (IcePairState.WAITING == list.state(p) && !concluded(list.local(p).componentId()) && startCheck(p))
            {
                return true;
            }
        }
        final int unfrozen = unfreezeOne();
        return -1 != unfrozen && startCheck(unfrozen);
    }

    private boolean startCheck(final int pair)
    {
        final byte flags = list.flags(pair);
        final boolean useCandidate = controlling && (aggressive || 0 != (flags & FLAG_USE_CANDIDATE));
        if (startRequest(KIND_CHECK, list.localIndex(pair), list.remoteIndex(pair), useCandidate) < 0)
        {
            return false;
        }
        list.flags(pair, (byte) (flags & ~FLAG_TRIGGERED));
        if (IcePairState.SUCCEEDED != list.state(pair))
        {
            list.state(pair, IcePairState.IN_PROGRESS);
        }
        return true;
    }

    /** §6.1.4.2: the highest Frozen pair whose foundation no Waiting/In-Progress pair shares becomes Waiting. */
    private int unfreezeOne()
    {
        for (int p = 0; p < list.size(); p++)
        {
            if (IcePairState.FROZEN != list.state(p) || concluded(list.local(p).componentId()))
            {
                continue;
            }
            boolean busy = false;
            for (int q = 0; q < list.size() && !busy; q++)
            {
                final byte s = list.state(q);
                busy = q != p && (IcePairState.WAITING == s || IcePairState.IN_PROGRESS == s)
                    && list.sameFoundation(p, q);
            }
            if (!busy)
            {
                list.state(p, IcePairState.WAITING);
                return p;
            }
        }
        return -1;
    }

    /**
     * §8.1.1: once each component has a valid pair and nothing better is pending, nominate the best valid pair of
     * each component by repeating, with USE-CANDIDATE, the check of the check-list pair that generated it.
     */
    private void nominate()
    {
        if (STATE_COMPLETED == state)
        {
            return;
        }
        boolean allValid = true;
        boolean betterPending = false;
        for (int c = 1; c <= components && allValid; c++)
        {
            final int best = bestValid(c);
            if (-1 == best)
            {
                allValid = false;
                continue;
            }
            // A check-list pair still to be checked that ranks above the best valid pair could do better.
            final long bestPriority = valid.priority(best, controlling);
            for (int p = 0; p < list.size() && list.priority(p) > bestPriority; p++)
            {
                final byte s = list.state(p);
                if (list.local(p).componentId() == c
                    && (IcePairState.WAITING == s || IcePairState.IN_PROGRESS == s || IcePairState.FROZEN == s))
                {
                    betterPending = true;
                }
            }
        }
        if (!allValid)
        {
            return;
        }
        if (Long.MAX_VALUE == allValidSinceMs)
        {
            allValidSinceMs = now;
        }
        if (betterPending && now - allValidSinceMs < nominationWaitMs)
        {
            return;
        }
        for (int c = 1; c <= components; c++)
        {
            final int best = bestValid(c);
            final int generating = list.find(valid.generatingLocal(best), valid.remoteIndex(best));
            final byte flags = list.flags(generating);
            if (0 == (flags & (FLAG_USE_CANDIDATE | FLAG_NOMINATED)))
            {
                list.flags(generating, (byte) (flags | FLAG_USE_CANDIDATE | FLAG_TRIGGERED));
            }
        }
    }

    /**
     * The valid pair of a component with the highest priority (§6.1.2.3, from its own candidates) whose generating
     * pair is still in the check list (the pair the nominating check is sent on), or -1.
     */
    private int bestValid(final int component)
    {
        int best = -1;
        long bestPriority = 0;
        for (int v = 0; v < valid.size(); v++)
        {
            if (valid.local(v).componentId() != component
                || -1 == list.find(valid.generatingLocal(v), valid.remoteIndex(v)))
            {
                continue;
            }
            final long priority = valid.priority(v, controlling);
            if (-1 == best || priority > bestPriority)
            {
                best = v;
                bestPriority = priority;
            }
        }
        return best;
    }

    /**
     * §7.2.5.3.4, §7.3.1.5: a valid pair is nominated — its nominated flag and its generating pair's are set — and it
     * becomes the component's selected pair unless a higher-priority one already is (§8.1.1 lets the controlling
     * agent nominate one pair per component; with aggressive nomination several are, and the best one is used).
     *
     * @param generating the check-list pair that generated {@code entry}.
     * @param entry      the valid pair.
     */
    private void nominated(final int generating, final int entry)
    {
        list.flags(generating, (byte) (list.flags(generating) | FLAG_NOMINATED));
        valid.nominate(entry);
        final int local = valid.localIndex(entry);
        final int base = valid.generatingLocal(entry);
        final int remote = valid.remoteIndex(entry);
        final int component = locals[local].componentId();
        final long priority = valid.priority(entry, controlling);
        if (-1 != selectedBase[component] && selectedPriority[component] >= priority)
        {
            return;
        }
        // The valid pair names the candidate the peer sees (server- or peer-reflexive when there is a NAT); data and
        // consent checks leave from its base, as the checks did (same socket, or the relay of a relayed base).
        selectedBase[component] = base;
        selectedLocal[component] = local;
        selectedRemote[component] = remoteAddress[remote];
        selectedPriority[component] = priority;
        selectedTurnSlot[component] = -1;
        if (IceCandidateType.RELAYED == locals[base].type())
        {
            context.address.set(remoteAddress[remote]);
            selectedTurnSlot[component] = turn[component].peerSlot(context.address);
        }
        consentLastMs[component] = now;
        consentNextMs[component] = now + (lite ? KEEPALIVE_TR_MS : consentInterval());
        if (STATE_COMPLETED == state && !freed)
        {
            freeAtMs = now + FREE_DELAY_MS; // §8.3.1: an aggressive peer changed the selection; 3 s more
        }
        cancelChecks(component);
        listener.onSelected(this, component);
        for (int c = 1; c <= components; c++)
        {
            if (0 == selectedPriority[c])
            {
                return;
            }
        }
        setState(STATE_COMPLETED);
    }

    /**
     * Whether a component's ICE processing concluded in this ICE generation: a nominated pair is selected
     * (§7.2.5.3.4: "Once the nominated flag is set for a component of a data stream, it concludes the ICE processing
     * for that component"). Its other pairs then count as removed (§8.1.2: "the ICE agent MUST remove all candidate
     * pairs for the same component from the checklist and from the triggered-check queue"): they get no more
     * checks, ordinary or triggered, and do not hold up §7.2.5.4. They stay in the arrays, so a Binding request that
     * still arrives on one is answered (§8.1.2: "an agent MUST continue to respond to any Binding request") without
     * re-adding it. An ICE restart clears {@code selectedPriority}, and with it this.
     */
    private boolean concluded(final int component)
    {
        return 0 != selectedPriority[component];
    }

    /**
     * §8.1.2: "If the state of a pair is In-Progress, the agent cancels the In-Progress transaction" — no more
     * retransmissions, no failure when it times out, a late answer still counts.
     */
    private void cancelChecks(final int component)
    {
        for (int slot = 0; slot < requests.capacity(); slot++)
        {
            final long token = requests.token(slot);
            if (requests.busy(slot) && KIND_CHECK == kindOf(token)
                && locals[localOf(token)].componentId() == component && !requests.cancelled(slot))
            {
                requests.cancel(slot, now);
            }
        }
    }

    /**
     * RFC 8445 §8.3.1, three seconds after completion: frees every candidate that no selected pair uses, ours and the
     * peer's (the host candidates stay: they are the owner's sockets and receive everything), empties the check and
     * valid lists (the selected pairs stay in the {@code selected*} arrays), and deletes the TURN allocations of the
     * components whose selected pair is not relayed: "Freeing of server-reflexive candidates is never explicit; it
     * happens by lack of a keepalive", while a relayed candidate is freed by a Refresh with LIFETIME 0 (RFC 8656
     * §7, §8). Before, unused allocations were refreshed, permitted and bound until {@link #close}. Candidates are
     * renumbered: every index the agent keeps (selected pairs, transaction tokens, relayed candidates) follows.
     * Signalling-rate work: it allocates one small index map.
     */
    private void freeUnselected()
    {
        freed = true;
        freeAtMs = Long.MAX_VALUE;
        final int[] localMap = new int[localCount];
        int kept = 0;
        for (int l = 0; l < localCount; l++)
        {
            localMap[l] = -1;
            if (IceCandidateType.HOST == locals[l].type() || selectedUses(l))
            {
                localMap[l] = kept;
                locals[kept] = locals[l];
                localSocket[kept] = localSocket[l];
                kept++;
            }
        }
        for (int l = kept; l < localCount; l++)
        {
            locals[l] = null;
        }
        localCount = kept;
        final int[] remoteMap = new int[remoteCount];
        kept = 0;
        for (int r = 0; r < remoteCount; r++)
        {
            remoteMap[r] = -1;
            for (int c = 1; c <= components; c++)
            {
                if (-1 != selectedBase[c] && remoteAddress[r].equals(selectedRemote[c]) && -1 == remoteMap[r])
                {
                    remoteMap[r] = kept;
                    remotes[kept] = remotes[r];
                    remoteAddress[kept] = remoteAddress[r];
                    kept++;
                }
            }
        }
        for (int r = kept; r < remoteCount; r++)
        {
            remotes[r] = null;
            remoteAddress[r] = null;
        }
        remoteCount = kept;
        for (int c = 1; c <= components; c++)
        {
            if (-1 != selectedBase[c])
            {
                selectedBase[c] = localMap[selectedBase[c]];
                selectedLocal[c] = localMap[selectedLocal[c]];
            }
        }
        for (int slot = 0; slot < requests.capacity(); slot++)
        {
            if (!requests.busy(slot))
            {
                continue;
            }
            final long token = requests.token(slot);
            final int local = localMap[localOf(token)];
            final int remote = KIND_SRFLX == kindOf(token) ? 0 : remoteMap[remoteOf(token)];
            if (KIND_CHECK == kindOf(token) || -1 == local || -1 == remote)
            {
                requests.free(slot); // checks were cancelled at nomination (§8.1.2); their pairs are gone
                continue;
            }
            requests.retoken(slot, token & ~0xFF_FF00L | (local & 0xFF) << 8 | (remote & 0xFF) << 16);
        }
        list.reset(locals, remotes);
        valid.reset(locals, remotes);
        if (null != turn)
        {
            for (int c = 1; c <= components; c++)
            {
                if (null == turn[c])
                {
                    continue;
                }
                final Relay relay = (Relay) turn[c].listener();
                relay.relayedLocal = -1 == relay.relayedLocal ? -1 : localMap[relay.relayedLocal];
                if (-1 == relay.relayedLocal && TurnClient.STATE_ALLOCATED == turn[c].state())
                {
                    turn[c].deallocate(now); // RFC 8656 §7: "a Refresh transaction with a zero lifetime"
                }
            }
        }
        dropClosedRelays();
    }

    /** §8.3.1: whether a selected pair of some component uses local candidate {@code l} (as base or as its local). */
    private boolean selectedUses(final int l)
    {
        for (int c = 1; c <= components; c++)
        {
            if (-1 != selectedBase[c] && (selectedBase[c] == l || selectedLocal[c] == l))
            {
                return true;
            }
        }
        return false;
    }

    /** Whether a request received on local candidate {@code local} from {@code from} is on a selected pair. */
    private boolean selectedPair(final int local, final InetSocketAddress from)
    {
        final int component = locals[local].componentId();
        return selectedBase[component] == local && from.equals(selectedRemote[component]);
    }

    /** Forgets the TURN clients that are closed and serve no selected pair (their allocation is deleted). */
    private void dropClosedRelays()
    {
        if (null == turn)
        {
            return;
        }
        boolean any = false;
        for (int c = 1; c <= components; c++)
        {
            if (null != turn[c] && TurnClient.STATE_CLOSED == turn[c].state()
                && -1 == ((Relay) turn[c].listener()).relayedLocal)
            {
                turn[c] = null;
            }
            any |= null != turn[c];
        }
        if (!any)
        {
            turn = null;
            turnPeers = null;
        }
    }

    private long consentInterval()
    {
        // RFC 7675 §5.1: uniformly random between 0.8 and 1.2 times the 5 s interval.
        return CONSENT_INTERVAL_MS * 4 / 5 + context.random.nextLong(CONSENT_INTERVAL_MS * 2 / 5 + 1);
    }

    private void consent()
    {
        for (int c = 1; c <= components; c++)
        {
            final int local = selectedBase[c];
            if (-1 == local)
            {
                continue;
            }
            if (now - consentLastMs[c] >= CONSENT_TIMEOUT_MS)
            {
                selectedBase[c] = -1;
                setState(STATE_FAILED);
                listener.onConsentLost(this, c);
                return;
            }
            if (now - consentNextMs[c] >= 0)
            {
                if (!pacingTurnFree())
                {
                    consentNextMs[c] = context.nextPacedMs; // §14.2: a consent check is a transaction too
                    continue;
                }
                consentNextMs[c] = now + consentInterval();
                final int remote = remoteIndexOf(selectedRemote[c]);
                if (remote >= 0 && startRequest(KIND_CONSENT, local, remote, false) >= 0)
                {
                    takePacingTurn();
                }
            }
        }
    }

    /**
     * RFC 8445 §11 for a lite agent, which sends no consent checks: "An agent MUST send a keepalive on each candidate
     * pair that is used for sending data if no packet has been sent on that pair in the last Tr seconds"; "a STUN
     * Binding Indication is used ... The Indication MUST NOT utilize any authentication mechanism. It SHOULD contain
     * the FINGERPRINT attribute to aid in demultiplexing, but it SHOULD NOT contain any other attributes." It leaves
     * from the selected pair's base to its remote candidate, like the data.
     */
    private void keepalive()
    {
        for (int c = 1; c <= components; c++)
        {
            if (-1 == selectedBase[c] || now - consentNextMs[c] < 0)
            {
                continue;
            }
            consentNextMs[c] = now + KEEPALIVE_TR_MS;
            final int length = context.writer.wrap(context.scratch, 0, context.scratch.length)
                .header(StunMessageType.BINDING_INDICATION, context.random.nextInt(), context.random.nextLong())
                .addFingerprint(context.integrity)
                .length();
            if (length > 0)
            {
                sendFrom(selectedBase[c], selectedRemote[c], selectedTurnSlot[c], context.scratch, 0, length);
            }
        }
    }

    private int remoteIndexOf(final InetSocketAddress address)
    {
        for (int r = 0; r < remoteCount; r++)
        {
            if (remoteAddress[r].equals(address))
            {
                return r;
            }
        }
        return -1;
    }

    /**
     * §7.2.5.4: "if all of the candidate pairs are in either Failed or Succeeded state, and if there is not a valid
     * pair in the valid list for each component of the data stream associated with the checklist, the state of the
     * checklist is set to Failed" — with trickle ICE only once both sides have gathered everything (RFC 8838 §8:
     * our gathering complete, the peer's end-of-candidates received), since a late candidate makes new pairs.
     */
    private void checkFailure()
    {
        if (STATE_RUNNING != state || !remoteEndOfCandidates || !gatheringComplete || 0 == list.size())
        {
            return;
        }
        for (int p = 0; p < list.size(); p++)
        {
            final byte s = list.state(p);
            if (IcePairState.FAILED != s && IcePairState.SUCCEEDED != s && !concluded(list.local(p).componentId()))
            {
                return;
            }
        }
        for (int c = 1; c <= components; c++)
        {
            if (!hasValidPair(c))
            {
                failCheckList();
                return;
            }
        }
    }

    private boolean hasValidPair(final int component)
    {
        for (int v = 0; v < valid.size(); v++)
        {
            if (valid.local(v).componentId() == component)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The check list is Failed (§7.2.5.4, §7.2.5.3.4). This agent serves one data stream, so its check list is the
     * whole check-list set and the ICE session fails with it (§8.1.2: "If the state of each checklist in the checklist
     * set is Failed, the state of the ICE session is set to Failed"): checks stop and the owner hears
     * {@link #STATE_FAILED}. The one exception is a failed ICE restart while every component still has the pair
     * selected before it: data keeps flowing there (§9) and the agent stays where it is.
     */
    private void failCheckList()
    {
        for (int c = 1; c <= components; c++)
        {
            if (-1 == selectedBase[c])
            {
                setState(STATE_FAILED);
                return;
            }
        }
    }

    /**
     * §7.2.5.2: the check of {@code pair} failed — it timed out ({@code answered} false), got an unrecoverable error
     * response, or its response was not symmetric.
     *
     * <p>If that check was a nomination, §7.2.5.3.4 applies: "If the controlling agent sends a Binding request with
     * the USE-CANDIDATE attribute set, and if the ICE agent receives a successful response to the request, the agent
     * sets the nominated flag of the pair to true. If the request fails (Section 7.2.5.2), the agent MUST remove the
     * candidate pair from the valid list, set the candidate pair state to Failed, and set the checklist state to
     * Failed." and, for the controlled agent, "If the controlled agent receives a successful response to a Binding
     * request sent by the agent, and that Binding request was triggered by a received Binding request with the
     * USE-CANDIDATE attribute set (Section 7.3.1.4), the agent sets the nominated flag of the pair to true. If the
     * triggered request fails, the agent MUST remove the candidate pair from the valid list, set the candidate pair
     * state to Failed, and set the checklist state to Failed." The controlling agent nominates a component once
     * (§8.1.1: another nomination "requires an ICE restart"), so the check list cannot complete after that.
     *
     * <p>What counts as a nomination here: our controlling check that carried USE-CANDIDATE because {@link #nominate}
     * picked the pair (regular nomination), and, when controlled, a check of a pair the peer nominated before it
     * succeeded ({@code FLAG_NOMINATE_ON_SUCCESS}, §7.3.1.5). Two cases keep the RFC 5245 behaviour, where a failed
     * check fails only its pair: aggressive nomination (RFC 5245 §8.1.1.2; every check carries USE-CANDIDATE, so one
     * unreachable pair would otherwise fail the whole list), and, when controlled, a nomination for a component whose
     * ICE processing this generation already concluded ("Once the nominated flag is set for a component of a data
     * stream, it concludes the ICE processing for that component", §7.2.5.3.4) — only a peer nominating several pairs
     * (aggressive, RFC 5245) sends one then. Either way the pair leaves the valid list and is Failed.
     *
     * @param pair         the check-list pair.
     * @param useCandidate whether the failed request carried USE-CANDIDATE.
     * @param answered     whether a response arrived (error or non-symmetric) rather than none.
     */
    private void checkFailed(final int pair, final boolean useCandidate, final boolean answered)
    {
        final byte flags = list.flags(pair);
        final boolean nomination = useCandidate && 0 != (flags & FLAG_USE_CANDIDATE)
            || !controlling && 0 != (flags & FLAG_NOMINATE_ON_SUCCESS);
        if (!nomination)
        {
            // A timeout fails only a pair still In-Progress (a Succeeded pair keeps what its first check showed);
            // an error or non-symmetric response fails the pair it answers.
            if (answered || IcePairState.IN_PROGRESS == list.state(pair))
            {
                list.state(pair, IcePairState.FAILED);
            }
            return;
        }
        final int component = list.local(pair).componentId();
        list.state(pair, IcePairState.FAILED);
        list.flags(pair, (byte) (flags & ~(FLAG_VALID | FLAG_USE_CANDIDATE | FLAG_NOMINATE_ON_SUCCESS
            | FLAG_TRIGGERED)));
        valid.removePair(list.localIndex(pair), list.remoteIndex(pair));
        if (controlling || !concluded(component))
        {
            failCheckList();
        }
    }

    // ---- receiving

    private void onPeerDatagram(final int local, final InetSocketAddress from, final int turnSlot, final byte[] buf,
        final int offset, final int length)
    {
        final StunMessageFlyweight message = context.message;
        if (length < StunMessageFlyweight.HEADER_LENGTH || !StunMessageFlyweight.isStun(buf, offset, length))
        {
            listener.onData(this, locals[local].componentId(), buf, offset, length);
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
            onRequest(local, from, turnSlot, wrap);
        }
        else if (StunMessageType.isResponse(type) && StunMessageType.METHOD_BINDING == message.method())
        {
            onResponse(local, from);
        }
    }

    private void onRequest(final int local, final InetSocketAddress from, final int turnSlot, final int wrap)
    {
        final StunMessageFlyweight request = context.message;
        if (StunResult.VERIFIED != request.verifyFingerprint(context.integrity))
        {
            return; // §7.3: ICE requests carry FINGERPRINT; anything else is not for us
        }
        if (freed && !selectedPair(local, from))
        {
            return; // §8.3.1: "cease responding to checks ... on that candidate" once freed
        }
        final int username = request.findAttribute(StunAttributeType.USERNAME);
        if (StunResult.UNKNOWN_COMPREHENSION_REQUIRED == wrap)
        {
            respondError(local, from, turnSlot, 420, false);
            return;
        }
        if (-1 == username || !request.valueStartsWith(username, localUsernamePrefix)
            || StunResult.VERIFIED != request.verifyMessageIntegrity(context.integrity, localKey))
        {
            respondError(local, from, turnSlot, 401, false); // RFC 8489 §9.1.3
            return;
        }
        final int controllingIndex = request.findAttribute(StunAttributeType.ICE_CONTROLLING);
        final int controlledIndex = request.findAttribute(StunAttributeType.ICE_CONTROLLED);
        if (-1 != controllingIndex || -1 != controlledIndex)
        {
            final boolean theyControl = -1 != controllingIndex;
            final long theirTieBreaker = request.u64Value(theyControl ? controllingIndex : controlledIndex);
            final int decision = IceRoleConflict.resolve(controlling, tieBreaker, theyControl, theirTieBreaker);
            if (IceRoleConflict.REPLY_487 == decision)
            {
                respondError(local, from, turnSlot, 487, true);
                return;
            }
            if (IceRoleConflict.SWITCH_ROLE == decision)
            {
                setRole(!controlling);
            }
        }
        final long priority = request.priority();
        final boolean useCandidate = request.useCandidate();
        respondSuccess(local, from, turnSlot);
        checksAnswered++;
        if (freed)
        {
            return; // §8.3.1: a check on a selected pair (the peer's consent) is answered; nothing is triggered
        }
        if (null == remoteKey && !lite)
        {
            return; // no remote credentials yet: the pair is learnt when the description arrives (§7.3.1.4 note)
        }
        int remote = remoteIndexOf(from);
        if (-1 == remote)
        {
            remote = learnPeerReflexive(local, from, priority);
            if (-1 == remote)
            {
                return;
            }
        }
        int pair = list.find(local, remote);
        if (-1 == pair)
        {
            list.addPairs(controlling, local, remote, localCount, remoteCount, IcePairState.WAITING);
            pair = list.find(local, remote);
            if (-1 == pair)
            {
                return;
            }
        }
        if (lite)
        {
            // A lite agent does no checks (§2.5: host candidates only): a check that arrives makes its pair valid,
            // as its own valid pair; USE-CANDIDATE selects it.
            list.state(pair, IcePairState.SUCCEEDED);
            list.flags(pair, (byte) (list.flags(pair) | FLAG_VALID));
            final int entry = valid.add(local, remote, local);
            if (useCandidate && -1 != entry)
            {
                nominated(pair, entry);
            }
            return;
        }
        triggered(pair, useCandidate && !controlling);
        if (useCandidate && !controlling)
        {
            // §7.3.1.5: if the pair succeeded, the valid pair it generated is nominated now; else the valid pair its
            // triggered check generates is, when it succeeds.
            final int entry = valid.findGenerated(local, remote);
            if (-1 != entry)
            {
                nominated(pair, entry);
            }
            else
            {
                list.flags(pair, (byte) (list.flags(pair) | FLAG_NOMINATE_ON_SUCCESS));
            }
        }
    }

    /**
     * §7.3.1.4: schedule a triggered check, unless the pair already succeeded. §8.1.2: nothing more is checked for a
     * concluded component, with one exception, for a controlled agent and a peer that nominates aggressively (RFC
     * 5245; an RFC 8445 controlling agent nominates one pair per component, §8.1.1): a nomination of another pair of a
     * concluded component still gets its triggered check, and the valid pair it generates is nominated (§7.3.1.5:
     * "once the check is sent and if it generates a successful response, and generates a valid pair, the agent sets
     * the nominated flag of the pair to true"), and selected if its priority is higher (RFC 5245 §8.1.2: the
     * highest-priority nominated pair is used). §8.1.2 removes the component's pairs from our own search; §8.3.1's
     * three seconds before candidates are freed exist because "the selected pairs can quickly change after ICE has
     * completed" with aggressive nomination. So the agent follows such nominations until it frees the candidates
     * (then it answers only its selected pairs). The check's failure fails only its pair (the exemption of
     * §7.2.5.3.4, see checkFailed).
     *
     * @param pair       the pair.
     * @param nomination whether the request that triggers it nominates (USE-CANDIDATE, and we are controlled).
     */
    private void triggered(final int pair, final boolean nomination)
    {
        final byte state = list.state(pair);
        if (IcePairState.SUCCEEDED == state
            || !nomination && (STATE_COMPLETED == this.state || concluded(list.local(pair).componentId())))
        {
            return; // §8.1.2: nothing more is checked for a concluded component
        }
        if (IcePairState.IN_PROGRESS == state)
        {
            for (int slot = 0; slot < requests.capacity(); slot++)
            {
                final long token = requests.token(slot);
                if (requests.busy(slot) && KIND_CHECK == kindOf(token) && localOf(token) == list.localIndex(pair)
                    && remoteOf(token) == list.remoteIndex(pair))
                {
                    requests.cancel(slot, now); // no more retransmissions; a late answer still counts
                }
            }
        }
        list.state(pair, IcePairState.WAITING);
        list.flags(pair, (byte) (list.flags(pair) | FLAG_TRIGGERED));
    }

    /** §7.3.1.3: a remote candidate learnt from a check's source; its priority is the PRIORITY attribute. */
    private int learnPeerReflexive(final int local, final InetSocketAddress from, final long priority)
    {
        if (remoteCount == remotes.length || priority <= 0)
        {
            return -1;
        }
        final IceCandidate candidate = new IceCandidate();
        IceAddresses.setAddress(candidate, from);
        candidate.set(IceCandidateType.PEER_REFLEXIVE, locals[local].componentId(), (int) priority,
            "prflx" + remoteCount);
        remotes[remoteCount] = candidate;
        remoteAddress[remoteCount] = from;
        return remoteCount++;
    }

    private void respondSuccess(final int local, final InetSocketAddress from, final int turnSlot)
    {
        final StunMessageFlyweight request = context.message;
        context.address.set(from);
        final int length = context.writer.wrap(context.scratch, 0, context.scratch.length)
            .header(StunMessageType.BINDING_SUCCESS_RESPONSE, request)
            .addAddress(StunAttributeType.XOR_MAPPED_ADDRESS, context.address)
            .addMessageIntegrity(context.integrity, localKey)
            .addFingerprint(context.integrity)
            .length();
        if (length > 0)
        {
            sendFrom(local, from, turnSlot, context.scratch, 0, length);
        }
    }

    private void respondError(final int local, final InetSocketAddress from, final int turnSlot, final int code,
        final boolean withIntegrity)
    {
        final StunMessageWriter writer = context.writer.wrap(context.scratch, 0, context.scratch.length)
            .header(StunMessageType.BINDING_ERROR_RESPONSE, context.message)
            .addErrorCode(code, 487 == code ? "Role Conflict" : 401 == code ? "Unauthenticated" : "Unknown Attribute");
        if (420 == code)
        {
            writer.addUnknownAttributes(context.message);
        }
        if (withIntegrity)
        {
            writer.addMessageIntegrity(context.integrity, localKey);
        }
        final int length = writer.addFingerprint(context.integrity).length();
        if (length > 0)
        {
            sendFrom(local, from, turnSlot, context.scratch, 0, length);
        }
    }

    private void onResponse(final int local, final InetSocketAddress from)
    {
        final StunMessageFlyweight response = context.message;
        final int slot = requests.find(response);
        if (-1 == slot)
        {
            return;
        }
        final long token = requests.token(slot);
        final byte kind = kindOf(token);
        final int requestLocalIndex = localOf(token);
        final int remote = remoteOf(token);
        final boolean useCandidate = useCandidateOf(token);
        if (KIND_SRFLX == kind)
        {
            requests.free(slot);
            onServerReflexive(requestLocalIndex);
            return;
        }
        if (null == remoteKey || StunResult.VERIFIED != response.verifyMessageIntegrity(context.integrity, remoteKey))
        {
            return; // RFC 8489 §9.1.4: ignore; the transaction goes on
        }
        requests.free(slot);
        final int pair = list.find(requestLocalIndex, remote);
        if (KIND_CONSENT == kind)
        {
            if (StunMessageType.CLASS_SUCCESS_RESPONSE == response.messageClass())
            {
                consentLastMs[locals[requestLocalIndex].componentId()] = now;
            }
            return;
        }
        if (-1 == pair)
        {
            return;
        }
        if (StunMessageType.CLASS_ERROR_RESPONSE == response.messageClass())
        {
            final int errorIndex = response.findAttribute(StunAttributeType.ERROR_CODE);
            if (-1 != errorIndex && 487 == response.errorCode(errorIndex))
            {
                // §7.2.5.1: "If the agent included an ICE-CONTROLLING attribute in the request, the agent MUST switch
                // to the controlled role" (and the reverse) — not a toggle: a request of ours may have switched us
                // already while this answer was on its way. Then the pair is checked again, and "The agent MUST
                // change the tiebreaker value."
                setRole(!asControllingOf(token));
                tieBreaker = context.secureRandom.nextLong();
                final int again = list.find(requestLocalIndex, remote);
                list.state(again, IcePairState.WAITING);
                list.flags(again, (byte) (list.flags(again) | FLAG_TRIGGERED));
                return;
            }
            checkFailed(pair, useCandidate, true); // §7.2.5.2.4: an unrecoverable error response (e.g. 400)
            return;
        }
        // §7.2.5.2.1: the response must come from where the request went, to the base it left from.
        if (requestLocalIndex != local || !from.equals(remoteAddress[remote]))
        {
            checkFailed(pair, useCandidate, true);
            return;
        }
        onCheckSucceeded(pair, valid.add(validLocal(requestLocalIndex), remote, requestLocalIndex), useCandidate);
    }

    /**
     * §7.2.5.3.2: the local candidate of the valid pair a successful check from {@code base} produces — the local
     * candidate of the component whose transport address equals the response's mapped address (the base itself, a
     * server-reflexive or relayed candidate, a peer-reflexive one learnt earlier); §7.2.5.3.1: if there is none, a
     * peer-reflexive local candidate with that address is learnt. Falls back to the base when the response has no
     * mapped address or the local limit is reached.
     */
    private int validLocal(final int base)
    {
        final StunMessageFlyweight response = context.message;
        final int index = response.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS);
        if (-1 == index || StunResult.OK != response.readAddress(index, context.address))
        {
            return base;
        }
        final IceCandidate baseCandidate = locals[base];
        for (int l = 0; l < localCount; l++)
        {
            if (locals[l].componentId() == baseCandidate.componentId() && IceAddresses.same(context.address, locals[l]))
            {
                return l;
            }
        }
        if (localCount == locals.length)
        {
            return base;
        }
        // §7.2.5.3.1: priority as the PRIORITY attribute of the check carried (§7.2.2), base the check's base.
        final int localPreference = (baseCandidate.priority() >>> 8) & 0xFFFF;
        final IceCandidate candidate = new IceCandidate();
        IceAddresses.setAddress(candidate, context.address);
        candidate.base(baseCandidate.family(), baseCandidate.addressHi(), baseCandidate.addressLo(),
            baseCandidate.port());
        candidate.set(IceCandidateType.PEER_REFLEXIVE, baseCandidate.componentId(),
            IcePriority.candidate(IceCandidateType.PEER_REFLEXIVE, localPreference, baseCandidate.componentId()),
            null);
        candidate.set(IceCandidateType.PEER_REFLEXIVE, baseCandidate.componentId(), candidate.priority(),
            foundations.foundationOf(candidate, IceCandidate.FAMILY_NONE, 0, 0));
        return null == addLocal(candidate, localSocket[base]) ? base : localCount - 1;
    }

    /**
     * The check of {@code pair} succeeded and produced valid pair {@code entry} (-1 if the valid list is full).
     */
    private void onCheckSucceeded(final int pair, final int entry, final boolean useCandidate)
    {
        list.state(pair, IcePairState.SUCCEEDED);
        final byte flags = list.flags(pair);
        list.flags(pair, (byte) (flags | FLAG_VALID)); // it generated a valid pair
        // §7.2.5.3.3: unfreeze the pairs of the same foundation.
        for (int p = 0; p < list.size(); p++)
        {
            if (IcePairState.FROZEN == list.state(p) && list.sameFoundation(p, pair))
            {
                list.state(p, IcePairState.WAITING);
            }
        }
        // §7.2.5.3.4 (our USE-CANDIDATE check succeeded), §7.3.1.5 (the peer nominated this pair while it was
        // being checked).
        if (-1 != entry
            && (controlling && useCandidate || !controlling && 0 != (flags & FLAG_NOMINATE_ON_SUCCESS)))
        {
            nominated(pair, entry);
        }
    }

    private void onServerReflexive(final int host)
    {
        pendingGathers--;
        final StunMessageFlyweight response = context.message;
        final int index = response.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS);
        if (StunMessageType.CLASS_SUCCESS_RESPONSE == response.messageClass() && -1 != index
            && StunResult.OK == response.readAddress(index, context.address))
        {
            addReflexive(host, context.address, stunServer);
        }
        maybeGatheringComplete();
    }

    private void addReflexive(final int host, final StunAddress mapped, final InetSocketAddress server)
    {
        final IceCandidate base = locals[host];
        final IceCandidate candidate = new IceCandidate();
        IceAddresses.setAddress(candidate, mapped);
        candidate.base(base.family(), base.addressHi(), base.addressLo(), base.port());
        candidate.related(base.family(), base.addressHi(), base.addressLo(), base.port());
        final int localPreference = (base.priority() >>> 8) & 0xFFFF;
        candidate.set(IceCandidateType.SERVER_REFLEXIVE, base.componentId(),
            IcePriority.candidate(IceCandidateType.SERVER_REFLEXIVE, localPreference, base.componentId()), null);
        final IceCandidate serverAddress = IceAddresses.setAddress(new IceCandidate(), server);
        candidate.set(IceCandidateType.SERVER_REFLEXIVE, base.componentId(), candidate.priority(),
            foundations.foundationOf(candidate, serverAddress.family(), serverAddress.addressHi(),
                serverAddress.addressLo()));
        // §5.1.3: a server-reflexive address equal to its host address (no NAT) is redundant.
        addLocal(candidate, localSocket[host]);
    }

    /** Receives what one component's TURN client reports. */
    private final class Relay implements TurnClient.Listener
    {
        private final int component;
        private int relayedLocal = -1;

        Relay(final int component)
        {
            this.component = component;
        }

        @Override
        public void onAllocated(final TurnClient client, final StunAddress relayed, final StunAddress mapped,
            final int lifetimeSeconds)
        {
            pendingGathers--;
            final int host = firstHost(component);
            if (0 != mapped.family())
            {
                addReflexive(host, mapped, client.server());
            }
            final IceCandidate candidate = new IceCandidate();
            IceAddresses.setAddress(candidate, relayed);
            if (0 != mapped.family())
            {
                IceAddresses.setRelated(candidate, mapped);
            }
            candidate.set(IceCandidateType.RELAYED, component,
                IcePriority.candidate(IceCandidateType.RELAYED, IcePriority.DEFAULT_LOCAL_PREFERENCE, component), null);
            final IceCandidate serverAddress = IceAddresses.setAddress(new IceCandidate(), client.server());
            candidate.set(IceCandidateType.RELAYED, component, candidate.priority(),
                foundations.foundationOf(candidate, serverAddress.family(), serverAddress.addressHi(),
                    serverAddress.addressLo()));
            if (null != addLocal(candidate, localSocket[host]))
            {
                relayedLocal = localCount - 1;
            }
            maybeGatheringComplete();
        }

        @Override
        public void onFailure(final TurnClient client, final int request, final int peerSlot, final int result)
        {
            if (TurnClient.REQUEST_ALLOCATE == request)
            {
                pendingGathers--;
                maybeGatheringComplete();
            }
        }

        @Override
        public void onChannelBound(final TurnClient client, final int peerSlot, final int channel)
        {
            nextCheckMs = now; // a relayed check was waiting for this channel
        }

        @Override
        public void onData(final TurnClient client, final int peerSlot, final StunAddress peer, final byte[] buf,
            final int offset, final int length)
        {
            if (-1 == relayedLocal || peerSlot < 0 || peerSlot >= TURN_PEERS)
            {
                return;
            }
            // A TURN client never reuses a peer slot for another address: one JDK address per slot, made once.
            final int key = component * TURN_PEERS + peerSlot;
            if (null == turnPeers[key])
            {
                turnPeers[key] = peer.toInetSocketAddress();
            }
            onPeerDatagram(relayedLocal, turnPeers[key], peerSlot, buf, offset, length);
        }
    }
}
