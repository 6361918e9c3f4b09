package io.sipline.media.turn;

import io.sipline.media.stun.StunAddress;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunClientTransactions;
import io.sipline.media.stun.StunRequestSlots;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;
import io.sipline.media.stun.StunPacer;
import io.sipline.media.stun.StunResult;
import io.sipline.media.stun.StunTransport;

import java.net.InetSocketAddress;

import static io.sipline.media.turn.TurnPeerTable.INSTALLED;
import static io.sipline.media.turn.TurnPeerTable.NONE;
import static io.sipline.media.turn.TurnPeerTable.PENDING;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A TURN client (RFC 8656) for one allocation over UDP, independent of any socket: it writes datagrams to a
 * {@link StunTransport} (addressed to the TURN server), is fed the server's datagrams through {@link #onDatagram},
 * and takes the owner's millisecond clock in every call and in {@link #poll}.
 *
 * <ul>
 *   <li>Allocate (§7.1, REQUESTED-TRANSPORT UDP) with the long-term credential ({@link TurnAuthentication});
 *       Refresh (§8) a minute before the lifetime ends (half-way under two minutes); {@link #deallocate} sends
 *       LIFETIME 0 (a 437 to that also means gone, §8.3).</li>
 *   <li>CreatePermission (§9) and ChannelBind (§11) per peer ({@link TurnPeerTable}), refreshed before they end.</li>
 *   <li>Data goes as ChannelData (§12.4, padded to 4 bytes) when the peer has a channel, else as a Send indication
 *       (§10.1); received ChannelData and Data indications (§10.4) reach {@link Listener#onData}.</li>
 *   <li>Errors come back as {@link TurnResult} codes: the server's error code or a local one (timeout, integrity).</li>
 *   <li>Every new transaction waits for a turn of the thread's {@link StunPacer} ({@link #pacer}; RFC 8445 §14);
 *       retransmissions leave on their schedule.</li>
 * </ul>
 *
 * <p>Requests are written again for each retransmission ({@link StunRequestSlots}); the codec and the buffer are
 * the thread's ({@link Shared}). Receiving or sending data allocates nothing.
 *
 * <p>Not thread-safe; owned by one media thread, which calls every method. Buffers passed in are borrowed for the call.
 */
public final class TurnClient
{
    /** {@link Listener#onFailure} request kinds. */
    public static final int REQUEST_ALLOCATE = 1;
    /** Refresh (also deallocation). */
    public static final int REQUEST_REFRESH = 2;
    /** CreatePermission. */
    public static final int REQUEST_PERMISSION = 3;
    /** ChannelBind. */
    public static final int REQUEST_CHANNEL_BIND = 4;

    /** Allocation states. */
    public static final int STATE_IDLE = 0;
    /** Allocate sent. */
    public static final int STATE_ALLOCATING = 1;
    /** Allocated. */
    public static final int STATE_ALLOCATED = 2;
    /** Deallocation sent. */
    public static final int STATE_DEALLOCATING = 3;
    /** Deallocated, expired or failed; the client may not be reused. */
    public static final int STATE_CLOSED = 4;

    /** RFC 8656 §9: permissions live 300 s. */
    public static final long PERMISSION_LIFETIME_MS = 300_000;
    /** RFC 8656 §12: channel bindings live 600 s. */
    public static final long CHANNEL_LIFETIME_MS = 600_000;
    /** Refresh this long before expiry (RFC 8656 §8.1, §9.2, §12.1 suggest one minute). */
    public static final long REFRESH_MARGIN_MS = 60_000;

    private static final int TRANSACTION_SLOTS = 3;
    private static final int UDP = 17;

    /**
     * What every TURN client of one media thread shares: the STUN reader and writer, a scratch address, the buffer
     * outgoing messages are written into, and the integrity engine. Not thread-safe; one per media thread.
     */
    public static final class Shared
    {
        final StunIntegrity integrity;
        final StunMessageFlyweight message = new StunMessageFlyweight(16, StunAttributeType.TURN_KNOWN_LOW);
        final StunMessageWriter writer = new StunMessageWriter();
        final StunAddress address = new StunAddress();
        final byte[] buffer;

        /**
         * @param integrity  the thread's integrity engine.
         * @param bufferSize the largest message written (data plus 36 bytes of Send indication), at least 512.
         */
        public Shared(final StunIntegrity integrity, final int bufferSize)
        {
            if (bufferSize < 512)
            {
                throw new IllegalArgumentException("TURN buffer under 512 bytes");
            }
            this.integrity = integrity;
            this.buffer = new byte[bufferSize];
        }
    }

    /**
     * Outcomes, called on the owning thread from {@link #onDatagram} and {@link #poll}. Every method has an empty
     * default.
     */
    public interface Listener
    {
        /**
         * @param client          the client.
         * @param relayed         the relayed transport address (valid during the call; copy it).
         * @param mapped          the server-reflexive address the server saw (XOR-MAPPED-ADDRESS), family 0 if absent.
         * @param lifetimeSeconds granted lifetime.
         */
        default void onAllocated(final TurnClient client, final StunAddress relayed, final StunAddress mapped,
            final int lifetimeSeconds)
        {
        }

        /**
         * @param client          the client.
         * @param lifetimeSeconds the granted lifetime; 0 after {@link #deallocate}.
         */
        default void onRefreshed(final TurnClient client, final int lifetimeSeconds)
        {
        }

        /**
         * @param client   the client.
         * @param peerSlot the peer (see {@link #peer(int)}).
         */
        default void onPermissionCreated(final TurnClient client, final int peerSlot)
        {
        }

        /**
         * @param client   the client.
         * @param peerSlot the peer.
         * @param channel  the bound channel number.
         */
        default void onChannelBound(final TurnClient client, final int peerSlot, final int channel)
        {
        }

        /**
         * @param client   the client.
         * @param request  {@link #REQUEST_ALLOCATE}, {@link #REQUEST_REFRESH}, {@link #REQUEST_PERMISSION} or
         *                 {@link #REQUEST_CHANNEL_BIND}.
         * @param peerSlot the peer for permission and channel requests, else -1.
         * @param result   a {@link TurnResult} code or the server's error code.
         */
        default void onFailure(final TurnClient client, final int request, final int peerSlot, final int result)
        {
        }

        /**
         * Data relayed from a peer.
         *
         * @param client   the client.
         * @param peerSlot the peer's slot, or -1 for a Data indication from a peer not in the table.
         * @param peer     the peer address (valid during the call).
         * @param buf      the bytes (valid during the call).
         * @param offset   first byte.
         * @param length   bytes.
         */
        default void onData(final TurnClient client, final int peerSlot, final StunAddress peer, final byte[] buf,
            final int offset, final int length)
        {
        }
    }

    private final StunTransport transport;
    private final InetSocketAddress server;
    private final Listener listener;
    private final TurnAuthentication authentication;
    private final Shared shared;
    private final StunIntegrity integrity;
    private StunPacer pacer = StunPacer.UNPACED;
    private final StunRequestSlots requests = new StunRequestSlots(TRANSACTION_SLOTS,
        StunClientTransactions.RTO_DEFAULT_MS, StunClientTransactions.RC_DEFAULT, StunClientTransactions.RM_DEFAULT);
    private final StunAddress relayed = new StunAddress();
    private final StunAddress mapped = new StunAddress();

    private final TurnPeerTable table;

    private int state = STATE_IDLE;
    private int requestedLifetime;
    private int grantedLifetime;
    private int pendingRefreshLifetime = -1;
    private long refreshAtMs = Long.MAX_VALUE;
    private long expiresAtMs = Long.MAX_VALUE;
    private long dataReceived;
    private long dataSent;
    private long now;


    /**
     * @param transport  where datagrams to the server go (for example the host socket of an ICE component).
     * @param server     the TURN server.
     * @param username   long-term credential username.
     * @param password   long-term credential password.
     * @param listener   who hears outcomes.
     * @param shared     the thread's shared codec and buffer.
     * @param maxPeers   peer table size (permissions and channels), 1 to 127.
     */
    public TurnClient(final StunTransport transport, final InetSocketAddress server, final String username,
        final String password, final Listener listener, final Shared shared, final int maxPeers)
    {
        if (maxPeers < 1 || maxPeers > 127)
        {
            throw new IllegalArgumentException("maxPeers must be 1..127");
        }
        this.transport = transport;
        this.server = server;
        this.authentication = new TurnAuthentication(username, password);
        this.listener = listener;
        this.shared = shared;
        this.integrity = shared.integrity;
        this.table = new TurnPeerTable(maxPeers);
    }

    /**
     * Makes every new transaction of this client wait for a turn of {@code value}. RFC 8445 §14.1: "the
     * transactions ... are paced at a rate indicated by Ta"; §14.2: "the combination of all transactions from all
     * agents (if a given implementation runs several concurrent agents) MUST NOT be sent more often than once every
     * 5 ms". A request that finds the turn taken keeps its transaction slot and leaves from {@link #poll} at
     * {@link StunPacer#nextTurnMs}; retransmissions are not paced (part of a transaction already started).
     *
     * @param value the pacer, {@link StunPacer#UNPACED} (the default) for none.
     * @return this.
     */
    public TurnClient pacer(final StunPacer value)
    {
        pacer = null == value ? StunPacer.UNPACED : value;
        return this;
    }

    /**
     * Sends the first Allocate request (RFC 8656 §7.1).
     *
     * @param lifetimeSeconds requested lifetime, or 0 to let the server choose (600 s by default).
     * @param nowMs           the owner's clock.
     * @return {@link TurnResult#OK} or a local failure code.
     */
    public int allocate(final int lifetimeSeconds, final long nowMs)
    {
        if (STATE_IDLE != state)
        {
            return TurnResult.NOT_ALLOCATED;
        }
        requestedLifetime = Math.max(0, lifetimeSeconds);
        state = STATE_ALLOCATING;
        authentication.resetRetries();
        final int result = startRequest(REQUEST_ALLOCATE, -1, nowMs);
        if (TurnResult.OK != result)
        {
            state = STATE_CLOSED;
        }
        return result;
    }

    /**
     * Refreshes now (the client also does it by itself before expiry).
     *
     * @param lifetimeSeconds requested lifetime; 0 deletes the allocation.
     * @param nowMs           the owner's clock.
     * @return {@link TurnResult#OK} or a local failure code.
     */
    public int refresh(final int lifetimeSeconds, final long nowMs)
    {
        if (STATE_ALLOCATED != state)
        {
            return TurnResult.NOT_ALLOCATED;
        }
        pendingRefreshLifetime = Math.max(0, lifetimeSeconds);
        if (0 == lifetimeSeconds)
        {
            state = STATE_DEALLOCATING;
        }
        return startRequest(REQUEST_REFRESH, -1, nowMs);
    }

    /**
     * Deletes the allocation: Refresh with LIFETIME 0 (RFC 8656 §8).
     *
     * @param nowMs the owner's clock.
     * @return {@link TurnResult#OK} or a local failure code.
     */
    public int deallocate(final long nowMs)
    {
        return refresh(0, nowMs);
    }

    /**
     * Installs a permission for a peer's IP address (RFC 8656 §9), adding the peer to the table if needed.
     *
     * @param peer  the peer's transport address (copied; the permission covers its IP address).
     * @param nowMs the owner's clock.
     * @return the peer slot (&gt;= 0) or a negative {@link TurnResult} code.
     */
    public int createPermission(final StunAddress peer, final long nowMs)
    {
        return peerRequest(REQUEST_PERMISSION, peer, table.permissionState, nowMs);
    }

    /**
     * Binds a channel to a peer (RFC 8656 §11), which also installs a permission for it.
     *
     * @param peer  the peer's transport address (copied).
     * @param nowMs the owner's clock.
     * @return the peer slot (&gt;= 0) or a negative {@link TurnResult} code.
     */
    public int bindChannel(final StunAddress peer, final long nowMs)
    {
        return peerRequest(REQUEST_CHANNEL_BIND, peer, table.channelState, nowMs);
    }

    /** CreatePermission or ChannelBind for a peer, unless one is already pending; marks it pending. */
    private int peerRequest(final int kind, final StunAddress peer, final byte[] states, final long nowMs)
    {
        if (STATE_ALLOCATED != state)
        {
            return TurnResult.NOT_ALLOCATED;
        }
        final int slot = table.slotOrAdd(peer);
        if (slot < 0 || PENDING == states[slot])
        {
            return slot;
        }
        if (REQUEST_CHANNEL_BIND == kind && TurnResult.OK != table.assignChannel(slot))
        {
            return TurnResult.NO_CHANNEL;
        }
        final int result = startRequest(kind, slot, nowMs);
        if (TurnResult.OK != result)
        {
            return result;
        }
        if (NONE == states[slot])
        {
            states[slot] = PENDING;
        }
        return slot;
    }

    /**
     * Sends data to a peer through the relay: ChannelData when a channel is bound, else a Send indication.
     *
     * @param peerSlot the peer (a slot returned by {@link #createPermission} or {@link #bindChannel}).
     * @param buf      data (borrowed, copied).
     * @param offset   first byte.
     * @param length   bytes.
     * @return {@link TurnResult#OK} or a negative code.
     */
    public int send(final int peerSlot, final byte[] buf, final int offset, final int length)
    {
        if (STATE_ALLOCATED != state)
        {
            return TurnResult.NOT_ALLOCATED;
        }
        if (peerSlot < 0 || peerSlot >= table.size() || 0 == table.peers[peerSlot].family())
        {
            return TurnResult.NO_PEER_SLOT;
        }
        if (INSTALLED == table.channelState[peerSlot])
        {
            final int frame = TurnChannelData.encode(shared.buffer, 0, table.channels[peerSlot], buf, offset, length,
                true);
            if (frame < 0)
            {
                return TurnResult.DATA_TOO_LARGE;
            }
            transport.send(shared.buffer, 0, frame, server);
            dataSent++;
            return TurnResult.OK;
        }
        if (INSTALLED != table.permissionState[peerSlot])
        {
            return TurnResult.NO_PERMISSION;
        }
        final int tidHigh = ThreadLocalRandom.current().nextInt();
        final long tidLow = ThreadLocalRandom.current().nextLong();
        final int frame = shared.writer.wrap(shared.buffer, 0, shared.buffer.length)
            .header(StunMessageType.type(StunMessageType.METHOD_SEND, StunMessageType.CLASS_INDICATION), tidHigh,
                tidLow)
            .addAddress(StunAttributeType.XOR_PEER_ADDRESS, table.peers[peerSlot])
            .addBytes(StunAttributeType.DATA, buf, offset, length)
            .length();
        if (frame < 0)
        {
            return TurnResult.DATA_TOO_LARGE;
        }
        transport.send(shared.buffer, 0, frame, server);
        dataSent++;
        return TurnResult.OK;
    }

    /**
     * Offers a datagram received from the TURN server.
     *
     * @param buf    bytes (borrowed for the call).
     * @param offset first byte.
     * @param length bytes.
     * @param nowMs  the owner's clock.
     * @return true when it was TURN traffic of this client (a response, ChannelData or a Data indication).
     */
    public boolean onDatagram(final byte[] buf, final int offset, final int length, final long nowMs)
    {
        if (TurnChannelData.looksLikeChannelData(buf, offset, length))
        {
            final int channel = TurnChannelData.channel(buf, offset, length);
            if (channel < 0)
            {
                return false;
            }
            final int slot = table.channelSlot(channel);
            if (-1 == slot)
            {
                return false;
            }
            dataReceived++;
            listener.onData(this, slot, table.peers[slot], buf, offset + TurnChannelData.HEADER_LENGTH,
                TurnChannelData.dataLength(buf, offset));
            return true;
        }
        final StunMessageFlyweight message = shared.message;
        final int wrap = message.wrap(buf, offset, length);
        if (wrap < 0)
        {
            return false;
        }
        final int type = message.messageType();
        if (StunMessageType.isResponse(type))
        {
            now = nowMs;
            final int slot = requests.find(message);
            if (-1 == slot)
            {
                return false;
            }
            final long token = requests.token(slot);
            requests.free(slot);
            onResponse(token, message, wrap);
            return true;
        }
        if (StunMessageType.type(StunMessageType.METHOD_DATA, StunMessageType.CLASS_INDICATION) == type)
        {
            return onDataIndication();
        }
        return false;
    }

    /**
     * Retransmits, times out, and refreshes what is due.
     *
     * @param nowMs the owner's clock.
     * @return work done (sends and timeouts).
     */
    public int poll(final long nowMs)
    {
        now = nowMs;
        int work = 0;
        for (int slot = requests.due(0, nowMs); slot >= 0; slot = requests.due(slot + 1, nowMs))
        {
            work++;
            if (0 == requests.sends(slot))
            {
                sendFirst(slot); // a paced start whose turn may have come (RFC 8445 §14.2)
            }
            else if (requests.shouldRetransmit(slot))
            {
                transmit(slot); // a retransmission: the transaction has started, no turn needed
            }
            else
            {
                final long token = requests.token(slot);
                requests.free(slot);
                fail((int) (token >>> 32), (int) token, TurnResult.TIMEOUT);
            }
        }
        if (STATE_ALLOCATED != state)
        {
            return work;
        }
        if (nowMs - expiresAtMs >= 0)
        {
            state = STATE_CLOSED; // §8: the server has deleted it; nothing to refresh
            listener.onFailure(this, REQUEST_REFRESH, -1, TurnResult.NOT_ALLOCATED);
            return work + 1;
        }
        if (nowMs - refreshAtMs >= 0 && -1 == pendingRefreshLifetime)
        {
            refreshAtMs = Long.MAX_VALUE;
            pendingRefreshLifetime = requestedLifetime > 0 ? requestedLifetime : grantedLifetime;
            if (TurnResult.OK == startRequest(REQUEST_REFRESH, -1, nowMs))
            {
                work++;
            }
            else
            {
                pendingRefreshLifetime = -1;
                refreshAtMs = nowMs + StunClientTransactions.RTO_DEFAULT_MS; // table busy: try again soon
            }
        }
        return work + refreshPeers(nowMs);
    }

    /**
     * @return the earliest time {@link #poll} has something to do, or {@link Long#MAX_VALUE}.
     */
    public long nextDeadlineMs()
    {
        long next = requests.nextDeadlineMs();
        if (STATE_ALLOCATED == state)
        {
            next = table.nextDeadlineMs(Math.min(next, Math.min(refreshAtMs, expiresAtMs)));
        }
        return next;
    }

    /**
     * @param peer an address.
     * @return its slot, or -1.
     */
    public int peerSlot(final StunAddress peer)
    {
        return table.slot(peer);
    }

    /**
     * @param peerSlot a slot.
     * @return the peer's address holder (read-only by contract).
     */
    public StunAddress peer(final int peerSlot)
    {
        return table.peers[peerSlot];
    }

    /**
     * @param peerSlot a slot.
     * @return the bound channel number, or 0 when none is installed.
     */
    public int channel(final int peerSlot)
    {
        return INSTALLED == table.channelState[peerSlot] ? table.channels[peerSlot] : 0;
    }

    /**
     * @param peerSlot a slot.
     * @return whether a permission is installed (a bound channel installs one too).
     */
    public boolean hasPermission(final int peerSlot)
    {
        return INSTALLED == table.permissionState[peerSlot] || INSTALLED == table.channelState[peerSlot];
    }

    /**
     * @return one of the STATE_ constants.
     */
    public int state()
    {
        return state;
    }

    /**
     * @return the relayed address (family 0 until allocated).
     */
    public StunAddress relayedAddress()
    {
        return relayed;
    }

    /**
     * @return the server-reflexive address the server reported (family 0 until allocated).
     */
    public StunAddress mappedAddress()
    {
        return mapped;
    }

    /**
     * @return the TURN server.
     */
    public InetSocketAddress server()
    {
        return server;
    }

    /**
     * @return who hears this client's outcomes.
     */
    public Listener listener()
    {
        return listener;
    }

    /**
     * @return relayed datagrams received.
     */
    public long dataReceived()
    {
        return dataReceived;
    }

    /**
     * @return datagrams sent through the relay.
     */
    public long dataSent()
    {
        return dataSent;
    }

    // ------------------------------------------------------------------------------------------------ internals

    /** §9.2, §12.1: refreshes the channels and permissions due; a busy table tries again an RTO later. */
    private int refreshPeers(final long nowMs)
    {
        final long retryAtMs = nowMs + StunClientTransactions.RTO_DEFAULT_MS;
        int work = 0;
        for (int slot = 0; slot < table.size(); slot++)
        {
            if (INSTALLED == table.channelState[slot] && nowMs - table.channelRefreshAtMs[slot] >= 0)
            {
                final boolean started = TurnResult.OK == startRequest(REQUEST_CHANNEL_BIND, slot, nowMs);
                table.channelRefreshAtMs[slot] = started ? Long.MAX_VALUE : retryAtMs;
                work += started ? 1 : 0;
            }
            else if (INSTALLED == table.permissionState[slot] && NONE == table.channelState[slot]
                && nowMs - table.permissionRefreshAtMs[slot] >= 0)
            {
                final boolean started = TurnResult.OK == startRequest(REQUEST_PERMISSION, slot, nowMs);
                table.permissionRefreshAtMs[slot] = started ? Long.MAX_VALUE : retryAtMs;
                work += started ? 1 : 0;
            }
        }
        return work;
    }

    private int startRequest(final int kind, final int slot, final long nowMs)
    {
        final int request = requests.start(((long) kind << 32) | (slot & 0xFFFF_FFFFL));
        if (-1 == request)
        {
            return TurnResult.BUSY;
        }
        now = nowMs;
        if (!pacer.takeTurn(nowMs))
        {
            requests.defer(request, pacer.nextTurnMs(nowMs)); // §14.2: leaves from poll on the thread's next turn
            return TurnResult.OK;
        }
        if (!transmit(request))
        {
            requests.free(request);
            return TurnResult.REQUEST_TOO_LARGE;
        }
        return TurnResult.OK;
    }

    /** The first transmission of a request deferred by the pacer: now if the turn is free, else later again. */
    private void sendFirst(final int request)
    {
        if (!pacer.takeTurn(now))
        {
            requests.defer(request, pacer.nextTurnMs(now));
            return;
        }
        if (!transmit(request))
        {
            final long token = requests.token(request);
            requests.free(request);
            fail((int) (token >>> 32), (int) token, TurnResult.REQUEST_TOO_LARGE);
        }
    }

    /** Writes a slot's request (again, with its transaction id) and sends it. */
    private boolean transmit(final int request)
    {
        final long token = requests.token(request);
        final int kind = (int) (token >>> 32);
        final int slot = (int) token;
        final int method = switch (kind)
        {
            case REQUEST_ALLOCATE -> StunMessageType.METHOD_ALLOCATE;
            case REQUEST_REFRESH -> StunMessageType.METHOD_REFRESH;
            case REQUEST_PERMISSION -> StunMessageType.METHOD_CREATE_PERMISSION;
            default -> StunMessageType.METHOD_CHANNEL_BIND;
        };
        final StunMessageWriter writer = shared.writer.wrap(shared.buffer, 0, shared.buffer.length)
            .header(StunMessageType.type(method, StunMessageType.CLASS_REQUEST), requests.tidHigh(request),
                requests.tidLow(request));
        switch (kind)
        {
            case REQUEST_ALLOCATE ->
            {
                writer.addU32(StunAttributeType.REQUESTED_TRANSPORT, UDP << 24); // §14.7: protocol, then RFFU
                if (requestedLifetime > 0)
                {
                    writer.addU32(StunAttributeType.LIFETIME, requestedLifetime);
                }
            }
            case REQUEST_REFRESH -> writer.addU32(StunAttributeType.LIFETIME, pendingRefreshLifetime);
            case REQUEST_PERMISSION -> writer.addAddress(StunAttributeType.XOR_PEER_ADDRESS, table.peers[slot]);
            default ->
            {
                writer.addU32(StunAttributeType.CHANNEL_NUMBER, table.channels[slot] << 16); // §14.1: number, then RFFU
                writer.addAddress(StunAttributeType.XOR_PEER_ADDRESS, table.peers[slot]);
            }
        }
        authentication.write(writer, integrity);
        final int length = writer.addFingerprint(integrity).length();
        if (length < 0)
        {
            return false;
        }
        requests.sent(request, now);
        transport.send(shared.buffer, 0, length, server);
        return true;
    }

    private void onResponse(final long token, final StunMessageFlyweight response, final int wrapResult)
    {
        final int kind = (int) (token >>> 32);
        final int slot = (int) token;
        if (StunMessageType.CLASS_ERROR_RESPONSE == response.messageClass())
        {
            onErrorResponse(kind, slot, response);
            return;
        }
        if (wrapResult != StunResult.OK || !authentication.verifies(response, integrity))
        {
            // RFC 8489 §9.2.5: a success response that does not verify is discarded; its transaction is gone, so
            // the request fails.
            fail(kind, slot, wrapResult != StunResult.OK ? TurnResult.MALFORMED_RESPONSE
                : TurnResult.INTEGRITY_MISMATCH);
            return;
        }
        authentication.resetRetries();
        switch (kind)
        {
            case REQUEST_ALLOCATE -> onAllocateSuccess(response);
            case REQUEST_REFRESH -> onRefreshSuccess(response);
            case REQUEST_PERMISSION ->
            {
                table.permissionInstalled(slot, now);
                listener.onPermissionCreated(this, slot);
            }
            default ->
            {
                if (table.channelInstalled(slot, now))
                {
                    listener.onChannelBound(this, slot, table.channels[slot]);
                }
            }
        }
    }

    private void onAllocateSuccess(final StunMessageFlyweight response)
    {
        final int relayedIndex = response.findAttribute(StunAttributeType.XOR_RELAYED_ADDRESS);
        if (-1 == relayedIndex || StunResult.OK != response.readAddress(relayedIndex, relayed))
        {
            fail(REQUEST_ALLOCATE, -1, TurnResult.MALFORMED_RESPONSE);
            return;
        }
        final int mappedIndex = response.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS);
        if (-1 == mappedIndex || StunResult.OK != response.readAddress(mappedIndex, mapped))
        {
            mapped.clear();
        }
        final int lifetime = lifetimeOf(response);
        state = STATE_ALLOCATED;
        schedule(lifetime);
        listener.onAllocated(this, relayed, mapped, lifetime);
    }

    private void onRefreshSuccess(final StunMessageFlyweight response)
    {
        final int asked = pendingRefreshLifetime;
        pendingRefreshLifetime = -1;
        if (0 == asked)
        {
            close();
            listener.onRefreshed(this, 0);
            return;
        }
        final int lifetime = lifetimeOf(response);
        schedule(lifetime);
        listener.onRefreshed(this, lifetime);
    }

    private void onErrorResponse(final int kind, final int slot, final StunMessageFlyweight response)
    {
        final int errorIndex = response.findAttribute(StunAttributeType.ERROR_CODE);
        final int code = -1 == errorIndex ? -1 : response.errorCode(errorIndex);
        if (code < 0)
        {
            fail(kind, slot, TurnResult.MALFORMED_RESPONSE);
            return;
        }
        if (TurnResult.UNAUTHENTICATED == code || TurnResult.STALE_NONCE == code)
        {
            final int challenge = authentication.onChallenge(response, code);
            if (TurnResult.OK != challenge)
            {
                fail(kind, slot, challenge);
                return;
            }
            final int result = startRequest(kind, slot, now);
            if (TurnResult.OK != result)
            {
                fail(kind, slot, result);
            }
            return;
        }
        if (REQUEST_REFRESH == kind && 0 == pendingRefreshLifetime && TurnResult.ALLOCATION_MISMATCH == code)
        {
            pendingRefreshLifetime = -1;
            close(); // §8.3: deleting an allocation the server no longer has
            listener.onRefreshed(this, 0);
            return;
        }
        fail(kind, slot, code);
    }

    private void fail(final int kind, final int slot, final int result)
    {
        switch (kind)
        {
            case REQUEST_ALLOCATE -> state = STATE_CLOSED;
            case REQUEST_REFRESH ->
            {
                final boolean deleting = 0 == pendingRefreshLifetime;
                pendingRefreshLifetime = -1;
                if (deleting || TurnResult.ALLOCATION_MISMATCH == result)
                {
                    close();
                }
                else
                {
                    refreshAtMs = Math.min(expiresAtMs, now + REFRESH_MARGIN_MS / 4); // try again before expiry
                }
            }
            case REQUEST_PERMISSION ->
            {
                if (PENDING == table.permissionState[slot])
                {
                    table.permissionState[slot] = NONE;
                }
            }
            default ->
            {
                if (PENDING == table.channelState[slot])
                {
                    table.channelState[slot] = NONE;
                }
            }
        }
        listener.onFailure(this, kind, kind >= REQUEST_PERMISSION ? slot : -1, result);
    }

    private void close()
    {
        state = STATE_CLOSED;
        refreshAtMs = Long.MAX_VALUE;
        expiresAtMs = Long.MAX_VALUE;
        table.clear();
    }

    private void schedule(final int lifetimeSeconds)
    {
        grantedLifetime = Math.max(1, lifetimeSeconds);
        final long lifetimeMs = lifetimeSeconds * 1000L;
        expiresAtMs = now + lifetimeMs;
        refreshAtMs = now + (lifetimeMs > 2 * REFRESH_MARGIN_MS ? lifetimeMs - REFRESH_MARGIN_MS : lifetimeMs / 2);
    }

    private static int lifetimeOf(final StunMessageFlyweight response)
    {
        final int index = response.findAttribute(StunAttributeType.LIFETIME);
        return -1 == index || 4 != response.attributeLength(index) ? 600 : (int) response.u32Value(index);
    }

    private boolean onDataIndication()
    {
        final StunMessageFlyweight message = shared.message;
        final StunAddress peer = shared.address;
        final int peerIndex = message.findAttribute(StunAttributeType.XOR_PEER_ADDRESS);
        final int dataIndex = message.findAttribute(StunAttributeType.DATA);
        if (-1 == peerIndex || -1 == dataIndex || StunResult.OK != message.readAddress(peerIndex, peer))
        {
            return false; // §10.4: discard
        }
        dataReceived++;
        listener.onData(this, peerSlot(peer), peer, message.array(), message.attributeValueOffset(dataIndex),
            message.attributeLength(dataIndex));
        return true;
    }
}
