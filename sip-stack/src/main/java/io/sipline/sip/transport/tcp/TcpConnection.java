package io.sipline.sip.transport.tcp;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.Ticker;
import io.netty.util.ReferenceCountUtil;
import io.sipline.sip.capture.HepCaptureAgent;
import io.sipline.sip.capture.HepEncoder;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.ByteBufCopy;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.transport.DatagramKind;
import io.sipline.sip.transport.RealtimeClock;
import io.sipline.sip.transport.StunKeepAlive;

/**
 * One SIP-over-TCP connection: frames the byte stream into messages (RFC 3261 §18.3), answers keep-alives, and sends.
 * Inbound bytes are copied into one reusable heap {@code byte[]} per connection, grown up to the maximum message size,
 * and parsed in place with {@link SipMessageParser#parseStream}; no buffer or message object is made per message.
 *
 * <p>Framing, where a message would start: {@code CRLFCRLF} is a ping answered with {@code CRLF} (RFC 5626 §4.4.1),
 * a shorter CR/LF run is skipped (RFC 3261 §7.5); a STUN message (RFC 8489 §6.2.2) is answered when it is a Binding
 * request ({@link StunKeepAlive}) and skipped otherwise; anything else is framed by {@code Content-Length}. Pending
 * bytes reaching the maximum size, or a message without Content-Length, close the connection (it cannot be
 * resynchronised); another malformed message goes to the handler, and reading goes on after it when it was framed.
 * A connection with neither a read nor a send for the idle time is closed by one self-re-arming task on its loop, and
 * so is one whose message is not whole within the message timeout of its first byte (slowloris, headers that never
 * end), or, accepted, has not sent a whole first message within it of its accept (idle connections, slow TLS
 * handshakes); the same check trims what a burst of large messages grew ({@link #trimBuffers}). A message that
 * declares a Content-Length beyond the maximum size closes the connection once its headers are read, before its body
 * is buffered. An accepted connection past its listener's limits
 * ({@link ConnectionAdmission}) is closed as it becomes active. Times come from the loop's {@link Ticker} (a test's
 * {@code EmbeddedChannel} moves it).
 *
 * <p>With HEP capture on (the shard's {@link HepCaptureAgent}), each message framed here is mirrored, timed by the
 * read that completed it, and a {@link StreamCapture} placed below this handler mirrors each message written.
 *
 * <p>Buffers: every {@link ByteBuf} Netty reads is copied into {@link #pending} and released once in the
 * {@code finally} of {@link #channelRead}; messages point into {@link #pending}. {@link #send} takes ownership of its
 * buffer: written (Netty releases it) or released at once when the connection cannot take it. An outbound connection
 * ({@link TcpShardConnections#flowTo}) exists before its handshake completes; what is sent meanwhile waits in a small
 * queue, written when the channel becomes active or released (counted) when the connect fails.
 *
 * <p>Not thread-safe except {@link #send}, {@link #close} and the address getters; everything else runs on the
 * connection's event loop. {@link #exceptionCaught} counts and closes this connection only.
 */
public final class TcpConnection extends ChannelInboundHandlerAdapter
{
    /** RFC 5626 §4.4.1: the pong's bytes; never written to, wrapped per pong (pings are rare: one per ~100 s). */
    private static final byte[] PONG = {'\r', '\n'};
    private static final int INITIAL_BYTES = 2048;
    private static final byte[] NO_BYTES = {};

    private final StreamMessageHandler handler;
    private final TcpCounters counters;
    /** The shard table this connection registers with while open (null for a standalone {@link TcpTransport}). */
    private final TcpShardConnections owner;
    private final boolean tls;
    /** RFC 7118: messages arrive whole from {@link WsFrames} (see {@link #onWebSocketMessage}); sends are framed. */
    private final boolean websocket;
    private final boolean outbound;
    /** See {@link #tlsDomain()}; written once before the connect, read by any thread after it. */
    private volatile String tlsDomain;
    /** The lower-case host of a WebSocket client's {@code .invalid} Contact ({@link WsContacts}); any thread. */
    private volatile String contactHost;
    /** The connection's number on its shard for {@link FlowTokens} (WebSocket only; 0 before it opens). */
    private volatile long flowId;
    /** Its RFC 5626 flow token, made on first use ({@link FlowTokens#tokenOf}); any thread. */
    private volatile String flowToken;
    /** The peer as a flow; known at construction for outbound connections, at activation for accepted ones. */
    private volatile TcpFlow flow;
    /** Sends made before an outbound connection became active (event loop only); null when none. */
    private ArrayDeque<ByteBuf> queued;
    private boolean activated;
    private final int maxMessageBytes;
    private final long idleNanos;
    /** See {@link #limits}; 0: no message timeout. */
    private long messageTimeoutNanos;
    /** The accepted connections' limits of the listener, or null; see {@link #limits}. */
    private ConnectionAdmission admission;
    /** The peer's address while this connection holds a place in {@link #admission}; else null. */
    private InetAddress admitted;
    /** Refused by {@link #admission}: never entered its shard's table. */
    private boolean refused;
    private final Runnable idleTask = this::checkIdle;
    /** The loop's clock (the system's, or a test's); set when the handler is added. */
    private volatile Ticker ticker = Ticker.systemTicker();
    /** {@link #ticker} time of the last read or send; written by the loop and by senders on other threads. */
    private volatile long lastActivity;
    /** {@link #ticker} time the message now pending began (or the accept, for a first message); see below. */
    private long messageStartNanos;
    /** True while a message is pending (or an accepted connection awaits its first): the message timeout runs. */
    private boolean messageStarted;
    private ScheduledFuture<?> idleCheck;
    private final SipMessage message = new SipMessage();

    /** Unconsumed inbound bytes live in {@code pending[0, pendingLength)}; unused over WebSocket. */
    private byte[] pending;
    private int pendingLength;
    /** The most bytes pending at once since the last {@link #trimBuffers}. */
    private int pendingPeak;

    private volatile Channel channel;
    /** This handler's context: sends start here, so that they pass the handlers below it only (WebSocket framing). */
    private volatile ChannelHandlerContext context;
    private boolean inRead;
    /** When the bytes being framed were read ({@link RealtimeClock}): the arrival time of the messages they end. */
    private long readAtNanos;
    private boolean flushPending;
    private boolean closing;

    /**
     * @param idleMillis close after this long with neither reads nor sends; 0 never.
     */
    TcpConnection(final StreamMessageHandler handler, final TcpCounters counters, final int maxMessageBytes,
        final long idleMillis)
    {
        this(handler, counters, maxMessageBytes, idleMillis, null, false, null, false);
    }

    /**
     * @param owner     the shard table to register with while open, or null.
     * @param tls       true when an {@code SslHandler} sits below this handler.
     * @param connectTo the destination of an outbound connection, or null for an accepted one.
     */
    TcpConnection(final StreamMessageHandler handler, final TcpCounters counters, final int maxMessageBytes,
        final long idleMillis, final TcpShardConnections owner, final boolean tls, final InetSocketAddress connectTo)
    {
        this(handler, counters, maxMessageBytes, idleMillis, owner, tls, connectTo, false);
    }

    /**
     * @param websocket true for a connection upgraded to WebSocket (RFC 7118): added to the pipeline after the
     *                  upgrade, above {@link WsFrames}; accepted only.
     */
    TcpConnection(final StreamMessageHandler handler, final TcpCounters counters, final int maxMessageBytes,
        final long idleMillis, final TcpShardConnections owner, final boolean tls, final InetSocketAddress connectTo,
        final boolean websocket)
    {
        this.websocket = websocket;
        this.pending = websocket ? NO_BYTES : new byte[INITIAL_BYTES];
        this.handler = handler;
        this.counters = counters;
        this.maxMessageBytes = maxMessageBytes;
        this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
        this.owner = owner;
        this.tls = tls;
        this.outbound = null != connectTo;
        this.flow = null == connectTo ? null : new TcpFlow(connectTo, this);
    }

    /**
     * Sets the limits against abuse, before the handler joins a pipeline (not over WebSocket, whose layer has its own).
     *
     * @param messageTimeoutMillis see {@link StreamSettings#messageTimeoutMillis()}; 0: none.
     * @param limits               the accepted connections' limits of the listener, or null: none.
     * @return this.
     */
    TcpConnection limits(final long messageTimeoutMillis, final ConnectionAdmission limits)
    {
        this.messageTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(messageTimeoutMillis);
        this.admission = limits;
        return this;
    }

    /**
     * The peer as a flow: the source of every message read here, and the destination that sends back on this
     * connection. Null for an accepted connection before it is active. Any thread.
     */
    public TcpFlow flow()
    {
        return flow;
    }

    /**
     * The IP protocol this connection's HEP captures carry: {@link HepEncoder#PROTOCOL_TLS} for SIP over TLS, else
     * {@link HepEncoder#PROTOCOL_TCP} (TCP, and WebSocket with or without TLS).
     */
    int captureProtocol()
    {
        return tls && !websocket ? HepEncoder.PROTOCOL_TLS : HepEncoder.PROTOCOL_TCP;
    }

    /** Mirrors a message read on this connection to the shard's HEP collector, when capture is on. */
    private void captureRead(final byte[] bytes, final int offset, final int length, final long atNanos)
    {
        final HepCaptureAgent capture = null == owner ? null : owner.capture();
        final InetSocketAddress remote = flow;
        final InetSocketAddress local = null == capture ? null : localAddress();
        if (null != local && null != remote && length > 0)
        {
            capture.capture(captureProtocol(), bytes, offset, length, remote, local, atNanos);
        }
    }

    /** True when this connection runs TLS. Any thread. */
    public boolean isTls()
    {
        return tls;
    }

    /** True for SIP over WebSocket (RFC 7118: Via transport {@code WS}, or {@code WSS} with TLS). Any thread. */
    public boolean isWebSocket()
    {
        return websocket;
    }

    String contactHost()
    {
        return contactHost;
    }

    void contactHost(final String host)
    {
        contactHost = host;
    }

    long flowId()
    {
        return flowId;
    }

    void flowId(final long id)
    {
        flowId = id;
    }

    int flowShard()
    {
        return null == owner ? 0 : owner.index();
    }

    String flowToken()
    {
        return flowToken;
    }

    void flowToken(final String token)
    {
        flowToken = token;
    }

    /** True when this side opened the connection. Any thread. */
    public boolean isOutbound()
    {
        return outbound;
    }

    /**
     * The SIP domain an outbound TLS connection's server proved with its certificate (RFC 5922 §7.3; an address
     * literal when it was opened without a domain); null for TCP and for accepted connections. Any thread.
     */
    public String tlsDomain()
    {
        return tlsDomain;
    }

    /**
     * True when this connection may carry a request for the SIP domain in {@code buf[start, end)}: any domain for
     * TCP; over TLS the domain it was opened for, ASCII case-insensitive (RFC 5922 §7.2); a null {@code buf} asks for
     * no particular domain. Allocates nothing. Event loop only.
     */
    boolean servesDomain(final byte[] buf, final int start, final int end)
    {
        if (!tls || null == buf)
        {
            return true;
        }
        return null != tlsDomain && Ascii.equalsIgnoreCase(buf, start, end, tlsDomain);
    }

    /** Set once, before connecting, by the shard that opens this connection. */
    void tlsDomain(final String domain)
    {
        tlsDomain = domain;
    }

    /** The peer's address, or null before the connection is active. Any thread. */
    public InetSocketAddress remoteAddress()
    {
        final Channel ch = channel;
        final SocketAddress address = null == ch ? null : ch.remoteAddress();
        return address instanceof InetSocketAddress inet ? inet : null;
    }

    /** The local address the connection was accepted on, or null before it is active. Any thread. */
    public InetSocketAddress localAddress()
    {
        final Channel ch = channel;
        final SocketAddress address = null == ch ? null : ch.localAddress();
        return address instanceof InetSocketAddress inet ? inet : null;
    }

    /** True while the connection is open. Any thread. */
    public boolean isActive()
    {
        final Channel ch = channel;
        return null != ch && ch.isActive();
    }

    /**
     * True when a send can still go out on this connection: it is open, or it is an outbound connection still
     * connecting (sends wait for it). Any thread (racy: a connection may close right after).
     */
    public boolean isUsable()
    {
        final Channel ch = channel;
        return null != ch && (ch.isActive() || outbound && !activated && ch.isOpen());
    }

    /**
     * Writes bytes on the connection. During a read on this connection's loop the write is flushed when the read
     * batch ends; otherwise at once. Any thread.
     *
     * @param bytes ownership passes to this method, written or not.
     * @return true when handed to the channel, false when released unsent (closed or over the write high-water mark;
     *         counted).
     */
    public boolean send(final ByteBuf bytes)
    {
        final Channel ch = channel;
        if (null != ch && outbound && !activated && ch.isOpen() && ch.eventLoop().inEventLoop())
        {
            // Still connecting: keep it until channelActive (or release it if the connect fails).
            if (null == queued)
            {
                queued = new ArrayDeque<>(4);
            }
            queued.add(bytes);
            lastActivity = ticker.nanoTime();
            return true;
        }
        if (null == ch || !ch.isActive() || !ch.isWritable())
        {
            bytes.release(); // refused: the reference we were given
            counters.increment(TcpCounters.SEND_FAILURES);
            return false;
        }
        counters.increment(TcpCounters.SENT);
        lastActivity = ticker.nanoTime();
        final ChannelHandlerContext c = context;
        if (inRead && ch.eventLoop().inEventLoop())
        {
            // voidPromise: no promise per write; a failed write reaches exceptionCaught, which counts and closes.
            c.write(bytes, c.voidPromise());
            flushPending = true;
        }
        else
        {
            c.writeAndFlush(bytes, c.voidPromise());
        }
        return true;
    }

    /** Closes the connection. Any thread. */
    public void close()
    {
        final Channel ch = channel;
        if (null != ch)
        {
            ch.close();
        }
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        // Outbound: the channel exists before it connects; sends in between are queued (see send).
        context = ctx;
        channel = ctx.channel();
        ticker = ctx.executor().ticker();
        final HepCaptureAgent capture = null == owner ? null : owner.capture();
        if (null != capture && null == ctx.pipeline().get(StreamCapture.NAME))
        {
            // Below this handler: every message it writes passes there, plain, on this connection's loop.
            ctx.pipeline().addBefore(ctx.name(), StreamCapture.NAME, new StreamCapture(capture, this));
        }
        if (websocket && ctx.channel().isActive())
        {
            activate(ctx); // added after the upgrade: the channel was active long before
        }
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        activate(ctx);
        ctx.fireChannelActive();
    }

    private void activate(final ChannelHandlerContext ctx)
    {
        channel = ctx.channel();
        activated = true;
        if (null == flow && ctx.channel().remoteAddress() instanceof InetSocketAddress remote)
        {
            flow = new TcpFlow(remote, this);
        }
        counters.increment(outbound ? TcpCounters.CONNECTED : TcpCounters.ACCEPTED);
        if (!admit(ctx))
        {
            return;
        }
        final long now = ticker.nanoTime();
        lastActivity = now;
        if (!outbound && !websocket && messageTimeoutNanos > 0)
        {
            messageStarted = true; // the first message (and any TLS handshake before it) is due from the accept
            messageStartNanos = now;
        }
        final long firstCheck = firstCheckNanos();
        if (firstCheck > 0)
        {
            idleCheck = ctx.executor().schedule(idleTask, firstCheck, TimeUnit.NANOSECONDS);
        }
        if (null != owner)
        {
            owner.opened(this);
        }
        if (null != queued)
        {
            // Written below any SslHandler, which holds them until its handshake is done.
            ByteBuf b;
            while (null != (b = queued.poll()))
            {
                ctx.write(b, ctx.voidPromise()); // ownership passes to the write
            }
            ctx.flush();
        }
    }

    /**
     * An accepted connection takes its place in the listener's limits, or is closed at once (counted by reason).
     *
     * @return false when refused.
     */
    private boolean admit(final ChannelHandlerContext ctx)
    {
        if (null == admission || outbound || websocket
            || !(ctx.channel().remoteAddress() instanceof InetSocketAddress remote))
        {
            return true;
        }
        final int refusal = admission.admit(remote.getAddress());
        if (0 != refusal)
        {
            counters.increment(refusal);
            refused = true;
            closing = true;
            ctx.close();
            return false;
        }
        admitted = remote.getAddress();
        return true;
    }

    /** The delay of the first timer check: the idle time, or the message timeout when shorter; 0 for none. */
    private long firstCheckNanos()
    {
        if (messageTimeoutNanos > 0 && (0 == idleNanos || messageTimeoutNanos < idleNanos))
        {
            return messageTimeoutNanos;
        }
        return idleNanos;
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        counters.increment(TcpCounters.CLOSED);
        pendingLength = 0;
        if (null != idleCheck)
        {
            idleCheck.cancel(false);
            idleCheck = null;
        }
        releaseQueued();
        if (null != admitted)
        {
            admission.release(admitted);
            admitted = null;
        }
        if (null != owner && !refused)
        {
            owner.closed(this);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(final ChannelHandlerContext ctx)
    {
        // A connect that failed never becomes active or inactive: the queue is released here then.
        releaseQueued();
        if (null != owner && !activated && !refused)
        {
            owner.closed(this);
        }
    }

    private void releaseQueued()
    {
        if (null != queued)
        {
            ByteBuf b;
            while (null != (b = queued.poll()))
            {
                b.release(); // never written: the reference send() took
                counters.increment(TcpCounters.SEND_FAILURES);
            }
        }
    }

    /**
     * Release rule: {@code msg} (a {@link ByteBuf} from the socket) is copied into {@link #pending} and released here,
     * in the {@code finally}, exactly once, whether parsing and the handler succeed, throw, or close the connection.
     * Nothing downstream ever sees it.
     */
    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        inRead = true;
        lastActivity = ticker.nanoTime();
        try
        {
            if (msg instanceof ByteBuf in && !closing)
            {
                onBytes(ctx, in);
            }
        }
        finally
        {
            inRead = false;
            ReferenceCountUtil.release(msg);
        }
    }

    private void onBytes(final ChannelHandlerContext ctx, final ByteBuf in)
    {
        // One clock read per read: every message this read completes arrived now (a message begun by an earlier read
        // could not be handled before its last byte came).
        readAtNanos = RealtimeClock.nanos();
        int index = in.readerIndex();
        int remaining = in.readableBytes();
        while (remaining > 0 && !closing)
        {
            final int room = maxMessageBytes - pendingLength;
            final int chunk = Math.min(room, remaining);
            copyIn(in, index, chunk);
            index += chunk;
            remaining -= chunk;
            drain(ctx);
            if (!closing && pendingLength >= maxMessageBytes)
            {
                // Still no whole message in the largest one we accept: nothing to resynchronise on.
                counters.increment(TcpCounters.OVERSIZE);
                closeNow(ctx);
            }
        }
    }

    /**
     * One whole WebSocket message (RFC 7118 §5: exactly one SIP message, so Content-Length may be absent), joined and
     * unmasked by {@link WsFrames}: parsed in place as a datagram and handed to the handler. A message of CRLFs only
     * is a keep-alive: {@code CRLFCRLF} is answered with {@code CRLF} (RFC 5626 §4.4.1), as over TCP. Sends made by
     * the handler are flushed when the read batch ends. On the connection's loop.
     *
     * @param bytes  borrowed for the call: the message points into it.
     * @return false when the message has no SIP start line (the caller closes the connection); a SIP message with a
     *         bad header goes to the handler (which may answer 400) and the connection stays.
     */
    boolean onWebSocketMessage(final byte[] bytes, final int length)
    {
        if (closing)
        {
            return true;
        }
        inRead = true;
        lastActivity = ticker.nanoTime();
        try
        {
            final ParseResult result = SipMessageParser.parseDatagram(bytes, 0, length, message);
            if (ParseResult.EMPTY == result)
            {
                if (keepAlive(bytes, 0, length) == 4 && length == 4)
                {
                    counters.increment(TcpCounters.PINGS);
                    send(Unpooled.wrappedBuffer(PONG));
                }
                return true;
            }
            counters.increment(ParseResult.OK == result ? TcpCounters.MESSAGES_IN : TcpCounters.PARSE_ERRORS);
            if (ParseResult.OK != result && !sipStartLine(bytes, length))
            {
                return false; // not SIP: nothing to answer on the sip subprotocol
            }
            final long now = RealtimeClock.nanos();
            message.receivedAtNanos(now);
            captureRead(bytes, 0, length, now);
            if (ParseResult.OK == result && null != owner && message.isRequest())
            {
                owner.learnWebSocketContact(this, message);
            }
            if (!handler.onMessage(this, message))
            {
                counters.increment(TcpCounters.DROPPED);
            }
            return true;
        }
        finally
        {
            inRead = false;
        }
    }

    /**
     * True when the first line (after any CRLFs) names a SIP version: a status line starting {@code SIP/}, or a
     * request line with {@code SIP/} after a space (RFC 3261 §7.1, §7.2). Allocates nothing.
     */
    private static boolean sipStartLine(final byte[] b, final int length)
    {
        int p = 0;
        while (p < length && (b[p] == '\r' || b[p] == '\n'))
        {
            p++;
        }
        final int start = p;
        while (p < length && b[p] != '\r' && b[p] != '\n')
        {
            p++;
        }
        for (int i = start; i + 4 <= p; i++)
        {
            if (b[i] == 'S' && b[i + 1] == 'I' && b[i + 2] == 'P' && b[i + 3] == '/' && (i == start || b[i - 1] == ' '))
            {
                return true;
            }
        }
        return false;
    }

    /** Appends {@code length} bytes of {@code in} at {@code from} to {@link #pending}, growing it up to the maximum. */
    private void copyIn(final ByteBuf in, final int from, final int length)
    {
        final int needed = pendingLength + length;
        if (needed > pending.length)
        {
            final byte[] grown = new byte[Math.min(maxMessageBytes, Math.max(needed, 2 * pending.length))];
            System.arraycopy(pending, 0, grown, 0, pendingLength);
            pending = grown;
        }
        // ByteBufCopy: a bulk getBytes out of a pooled direct buffer would build a ByteBuffer view (JDK 25).
        ByteBufCopy.copyOut(in, from, pending, pendingLength, length);
        pendingLength = needed;
        if (needed > pendingPeak)
        {
            pendingPeak = needed;
        }
    }

    /** Frames and hands over every whole message in {@link #pending}, then moves the rest to the front. */
    private void drain(final ChannelHandlerContext ctx)
    {
        final byte[] b = pending;
        final int end = pendingLength;
        final Channel ch = ctx.channel();
        int pos = 0;
        // The handler may close the connection (ch inactive): stop framing then.
        while (pos < end && !closing && ch.isActive())
        {
            final byte first = b[pos];
            if (first == '\r' || first == '\n')
            {
                final int ping = keepAlive(b, pos, end);
                if (ping > 0)
                {
                    // RFC 5626 §4.4.1: "\r\n\r\n" where a message would start is a ping; answer one "\r\n".
                    counters.increment(TcpCounters.PINGS);
                    send(Unpooled.wrappedBuffer(PONG));
                    pos += ping;
                    continue;
                }
                if (ping == 0)
                {
                    break; // could still become a ping: wait for the next bytes
                }
                pos++; // RFC 3261 §7.5: a CRLF before a start line is ignored
                continue;
            }
            if ((first & 0xC0) == 0)
            {
                final int stun = stun(ctx, b, pos, end);
                if (stun == 0)
                {
                    break; // a STUN header or body still incomplete: wait
                }
                if (stun > 0)
                {
                    pos += stun;
                    continue;
                }
                // not STUN: the parser judges it (a malformed start line closes the connection)
            }
            final ParseResult result = SipMessageParser.parseStream(b, pos, end - pos, message);
            if (ParseResult.INCOMPLETE == result)
            {
                if (declaredTooLarge(pos))
                {
                    // Its headers are read and its body could never fit: close before buffering any of it.
                    counters.increment(TcpCounters.TOO_LARGE);
                    closeNow(ctx);
                }
                break;
            }
            if (ParseResult.MISSING_CONTENT_LENGTH == result)
            {
                // RFC 3261 §18.3: Content-Length is mandatory on a stream; without it no message boundary can be
                // found again. Answer nothing, close.
                counters.increment(TcpCounters.PARSE_ERRORS);
                counters.increment(TcpCounters.FRAMING_ERRORS);
                closeNow(ctx);
                break;
            }
            final int frame = message.frameLength();
            if (ParseResult.OK == result)
            {
                counters.increment(TcpCounters.MESSAGES_IN);
            }
            else
            {
                counters.increment(TcpCounters.PARSE_ERRORS);
            }
            message.receivedAtNanos(readAtNanos);
            captureRead(b, pos, frame > 0 ? frame : end - pos, readAtNanos);
            if (!handler.onMessage(this, message))
            {
                counters.increment(TcpCounters.DROPPED);
            }
            if (ParseResult.OK != result && frame <= 0)
            {
                // Malformed before its end was known: the handler has had its say, the stream is lost.
                counters.increment(TcpCounters.FRAMING_ERRORS);
                closeNow(ctx);
                break;
            }
            pos += frame;
        }
        if (closing)
        {
            pendingLength = 0;
            return;
        }
        keepRest(b, pos, end);
    }

    /** Moves the unframed bytes {@code b[pos, end)} to the front, and times the message they begin. */
    private void keepRest(final byte[] b, final int pos, final int end)
    {
        final int left = end - pos;
        if (pos > 0 && left > 0)
        {
            System.arraycopy(b, pos, b, 0, left);
        }
        pendingLength = left;
        if (0 == left)
        {
            messageStarted = false;
        }
        else if ((pos > 0 || !messageStarted) && messageTimeoutNanos > 0)
        {
            // A message began in this read (an accepted connection's first keeps the accept as its start)
            messageStarted = true;
            messageStartNanos = lastActivity;
        }
    }

    /**
     * True when the message at {@code pos}, its headers read but its body not, declares a Content-Length that
     * makes it longer than the maximum message size (RFC 3261 §18.3 frames it by that length).
     */
    private boolean declaredTooLarge(final int pos)
    {
        final int bodyStart = message.bodyStart();
        final int contentLength = message.contentLength();
        return bodyStart >= pos && contentLength >= 0 && (long)bodyStart - pos + contentLength > maxMessageBytes;
    }

    /**
     * @return 4 when a CRLFCRLF ping starts at {@code pos}; 0 when the bytes from {@code pos} to the end are a proper
     *         prefix of one (wait); -1 otherwise.
     */
    private static int keepAlive(final byte[] b, final int pos, final int end)
    {
        final int n = Math.min(4, end - pos);
        for (int i = 0; i < n; i++)
        {
            if (b[pos + i] != ((i & 1) == 0 ? '\r' : '\n'))
            {
                return -1;
            }
        }
        return n == 4 ? 4 : 0;
    }

    /**
     * A STUN message where a SIP message would start (RFC 8489 §5: first two bits 0, magic cookie at offset 4; §6.2.2
     * framing by its length field).
     *
     * @return its whole length when complete (answered if a Binding request, always counted); 0 when more bytes are
     *         needed; -1 when it is not STUN.
     */
    private int stun(final ChannelHandlerContext ctx, final byte[] b, final int pos, final int end)
    {
        if (end - pos < DatagramKind.STUN_HEADER_BYTES)
        {
            // Could be the start of a STUN header: wait while the bytes seen so far allow a cookie.
            return cookiePrefix(b, pos, end) ? 0 : -1;
        }
        if (readInt(b, pos + 4) != DatagramKind.STUN_MAGIC_COOKIE)
        {
            return -1;
        }
        final int length = StunKeepAlive.messageLength(((b[pos + 2] & 0xFF) << 8) | (b[pos + 3] & 0xFF));
        if (length > maxMessageBytes || end - pos < length)
        {
            return length > maxMessageBytes ? -1 : 0;
        }
        counters.increment(TcpCounters.STUN);
        final ByteBuf answer = StunKeepAlive.answer(ctx.alloc(), ((b[pos] & 0xFF) << 8) | (b[pos + 1] & 0xFF),
            readInt(b, pos + 8), readInt(b, pos + 12), readInt(b, pos + 16), remoteAddress());
        if (null != answer)
        {
            send(answer); // ownership passes to send
        }
        return length;
    }

    private static boolean cookiePrefix(final byte[] b, final int pos, final int end)
    {
        for (int i = 4; i < 8 && pos + i < end; i++)
        {
            if ((b[pos + i] & 0xFF) != (DatagramKind.STUN_MAGIC_COOKIE >>> (8 * (7 - i)) & 0xFF))
            {
                return false;
            }
        }
        return true;
    }

    private static int readInt(final byte[] b, final int at)
    {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }

    private void closeNow(final ChannelHandlerContext ctx)
    {
        closing = true;
        if (flushPending)
        {
            flushPending = false;
            ctx.flush(); // the handler's answer (a 400) goes out before the FIN
        }
        ctx.close();
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        if (flushPending)
        {
            flushPending = false;
            ctx.flush();
        }
        ctx.fireChannelReadComplete();
    }

    /**
     * On the connection's loop: close when idle for the whole period, or when the pending message (or an accepted
     * connection's first) has not come whole within the message timeout; else re-arm for the nearer time left.
     */
    private void checkIdle()
    {
        final Channel ch = channel;
        if (null == ch || !ch.isActive() || closing)
        {
            return;
        }
        trimBuffers();
        final long now = ticker.nanoTime();
        long next = Long.MAX_VALUE;
        if (idleNanos > 0)
        {
            final long idleFor = now - lastActivity;
            if (idleFor >= idleNanos)
            {
                closeOnTimer(ch, TcpCounters.IDLE_CLOSED);
                return;
            }
            next = idleNanos - idleFor;
        }
        if (messageTimeoutNanos > 0)
        {
            final long waitedFor = messageStarted ? now - messageStartNanos : 0;
            if (waitedFor >= messageTimeoutNanos)
            {
                closeOnTimer(ch, TcpCounters.MESSAGE_TIMEOUTS);
                return;
            }
            next = Math.min(next, messageTimeoutNanos - waitedFor);
        }
        idleCheck = ch.eventLoop().schedule(idleTask, next, TimeUnit.NANOSECONDS);
    }

    /**
     * From the timer check, between reads: the reused message lets go of what a burst of large messages grew
     * ({@link SipMessage#trimScratch}; its last message was handled and is dead), and the pending buffer, when empty,
     * goes back to its initial size unless a message since the last check needed more than
     * {@link SipMessage#KEPT_OWN_BYTES}. Allocates only when it lets an array go.
     */
    private void trimBuffers()
    {
        if (inRead)
        {
            return;
        }
        message.trimScratch();
        final int kept = SipMessage.KEPT_OWN_BYTES;
        if (0 == pendingLength && pending.length > kept && pendingPeak <= kept)
        {
            pending = new byte[INITIAL_BYTES];
        }
        pendingPeak = pendingLength;
    }

    /** The pending buffer's size (for tests of {@link #trimBuffers}). */
    int pendingCapacity()
    {
        return pending.length;
    }

    private void closeOnTimer(final Channel ch, final int slot)
    {
        counters.increment(slot);
        closing = true;
        pendingLength = 0;
        ch.close();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        // Never rethrow: this connection is closed, the loop and every other connection go on.
        counters.error(cause);
        if (cause instanceof javax.net.ssl.SSLException || cause.getCause() instanceof javax.net.ssl.SSLException)
        {
            counters.increment(TcpCounters.TLS_FAILURES); // a handshake or record error, wrapped by SslHandler
        }
        closing = true;
        pendingLength = 0;
        ctx.close();
    }
}
