package io.sipline.sip.transport.tcp;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.Ticker;
import io.sipline.sip.message.ByteBufCopy;

/**
 * The WebSocket layer of one SIP-over-WebSocket connection (RFC 6455 §5 framing, RFC 7118 §5 one SIP message per
 * WebSocket message). It sits at the bottom of the pipeline from the accept on: before the upgrade it passes bytes
 * to the HTTP codec above it and enforces the connection limits and the handshake timeout; after
 * {@link #upgraded} it reads frames itself and writes them for the {@link TcpConnection} above it.
 *
 * <p>Inbound: each frame's payload is unmasked into one reusable {@code byte[]} per connection, fragments joined
 * there (text or binary, RFC 6455 §5.4), and the whole message handed to {@link TcpConnection#onWebSocketMessage}.
 * Ping is answered with Pong, Close with Close. An unmasked, reserved or misordered frame closes with 1002; a frame or
 * a joined message over the maximum with 1009; a message without a SIP start line with 1002. Text payloads are not
 * checked as UTF-8 here: the SIP parser judges them. Outbound: every {@link ByteBuf} written by the connection (one
 * SIP message) gets a text-frame header in a pooled two-to-ten-byte buffer written before it; no frame object is made.
 * Keep-alive and deadlines: one self-re-arming task sends a Ping after {@link WsSettings#pingMillis()} without a
 * frame from the client, closes after {@link WsSettings#idleMillis()}, and closes with 1008 a connection whose data
 * message (its frames, and any control frames between them) is not whole within the stream message timeout of its
 * first byte, as a TCP connection's message must be (a payload trickled a byte at a time would otherwise hold the
 * connection as long as each byte came before the idle time). The message buffer grows with the payload received,
 * not with the length a frame header claims.
 *
 * <p>Buffers: each inbound {@link ByteBuf} is released in {@link #channelRead}'s {@code finally}; the written
 * payload's ownership passes to the channel with the write. Not thread-safe: everything runs on the connection's loop
 * (writes from other threads reach {@link #write} on it).
 */
final class WsFrames extends ChannelDuplexHandler
{
    private static final int OP_CONTINUATION = 0x0;
    private static final int OP_TEXT = 0x1;
    private static final int OP_BINARY = 0x2;
    private static final int OP_CLOSE = 0x8;
    private static final int OP_PING = 0x9;
    private static final int OP_PONG = 0xA;
    /** RFC 6455 §7.4.1 status codes. */
    static final int CLOSE_NORMAL = 1000;
    static final int CLOSE_GOING_AWAY = 1001;
    static final int CLOSE_PROTOCOL_ERROR = 1002;
    static final int CLOSE_POLICY_VIOLATION = 1008;
    static final int CLOSE_TOO_BIG = 1009;
    private static final int MAX_CONTROL = 125;
    private static final int INITIAL_MESSAGE = 2048;

    private final WsSettings settings;
    private final WsCounters counters;
    private final ConnectionAdmission admission;
    /** 0: no message timeout. */
    private final long messageTimeoutNanos;
    private final Runnable timerTask = this::onTimer;
    private ChannelHandlerContext ctx;
    /** The loop's clock (a test's mock clock on an embedded channel). */
    private Ticker ticker;
    private TcpConnection connection;
    private InetAddress peer;
    private boolean admitted;
    private boolean upgraded;
    private boolean closing;
    private ScheduledFuture<?> timer;
    /** {@link #ticker} time of the last frame read. */
    private long lastInbound;
    /** True from the first byte of a data message (or of a frame outside one) until it is whole. */
    private boolean messagePending;
    /** {@link #ticker} time of the read that brought the pending message's first byte. */
    private long messageStart;

    /** The frame header being read: 2 bytes, up to 8 of extended length, 4 of mask. */
    private final byte[] head = new byte[14];
    private int headLength;
    private boolean inPayload;
    private int frameOpcode;
    private boolean frameFin;
    private long payloadLeft;
    private int payloadPos;
    private final byte[] mask = new byte[4];
    /** The data message being joined: {@code message[0, messageLength)}; its opcode, 0 between messages. */
    private byte[] message;
    private int messageLength;
    private int messageOpcode;
    private byte[] control;
    private int controlLength;

    /**
     * @param messageTimeoutMillis a data message must be whole within this long of its first byte
     *                             ({@link StreamSettings#messageTimeoutMillis()}); 0: never.
     */
    WsFrames(final WsSettings settings, final WsCounters counters, final ConnectionAdmission admission,
        final long messageTimeoutMillis)
    {
        this.settings = settings;
        this.counters = counters;
        this.admission = admission;
        this.messageTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(messageTimeoutMillis);
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext context)
    {
        ctx = context;
        ticker = context.executor().ticker();
    }

    @Override
    public void channelActive(final ChannelHandlerContext context)
    {
        counters.increment(WsCounters.ACCEPTED);
        peer = context.channel().remoteAddress() instanceof InetSocketAddress remote ? remote.getAddress() : null;
        final int refused = null == peer ? 0 : admission.admit(peer);
        if (0 != refused)
        {
            counters.increment(refused);
            closing = true;
            context.close();
            return;
        }
        admitted = null != peer;
        timer = context.executor().schedule(timerTask, settings.handshakeMillis(), TimeUnit.MILLISECONDS);
        context.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext context)
    {
        counters.increment(WsCounters.CLOSED);
        if (admitted)
        {
            admitted = false;
            admission.release(peer);
        }
        cancelTimer();
        context.fireChannelInactive();
    }

    /**
     * Called by {@link WsHandshake} once the 101 is written and {@code sip} is in the pipeline above this handler:
     * frames are read from the next byte on.
     */
    void upgraded(final TcpConnection sip)
    {
        connection = sip;
        upgraded = true;
        counters.increment(WsCounters.UPGRADED);
        cancelTimer();
        lastInbound = ticker.nanoTime();
        final long period = firstTimerMillis();
        if (period > 0 && !closing)
        {
            timer = ctx.executor().schedule(timerTask, period, TimeUnit.MILLISECONDS);
        }
    }

    /** The message buffer's size now, 0 before the first data frame (for tests of its growth). */
    int messageCapacity()
    {
        return null == message ? 0 : message.length;
    }

    boolean isUpgraded()
    {
        return upgraded;
    }

    /** Release rule: {@code msg} is released here, in the {@code finally}, once upgraded; passed on before. */
    @Override
    public void channelRead(final ChannelHandlerContext context, final Object msg)
    {
        if (!upgraded)
        {
            if (closing)
            {
                ReferenceCountUtil.release(msg);
                return;
            }
            context.fireChannelRead(msg); // the HTTP upgrade request, for the codec above
            return;
        }
        try
        {
            if (msg instanceof ByteBuf in && !closing)
            {
                lastInbound = ticker.nanoTime();
                read(in);
            }
        }
        finally
        {
            ReferenceCountUtil.release(msg);
        }
    }

    private void read(final ByteBuf in)
    {
        while (in.isReadable() && !closing)
        {
            if (inPayload)
            {
                readPayload(in);
                continue;
            }
            if (0 == headLength && !messagePending)
            {
                messagePending = true;
                messageStart = lastInbound;
            }
            int need = headerNeed();
            while (headLength < need && in.isReadable())
            {
                head[headLength++] = in.readByte();
                need = headerNeed();
            }
            if (headLength < need)
            {
                return;
            }
            startFrame();
        }
    }

    /** Header bytes needed given those read: 2, then 2 + extended length + mask (RFC 6455 §5.2). */
    private int headerNeed()
    {
        if (headLength < 2)
        {
            return 2;
        }
        final int len7 = head[1] & 0x7F;
        final int extended = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
        return 2 + extended + ((head[1] & 0x80) != 0 ? 4 : 0);
    }

    private void startFrame()
    {
        final int b0 = head[0] & 0xFF;
        final int b1 = head[1] & 0xFF;
        final int need = headLength;
        headLength = 0;
        final boolean fin = (b0 & 0x80) != 0;
        final int opcode = b0 & 0x0F;
        final int len7 = b1 & 0x7F;
        long length = len7;
        if (len7 == 126)
        {
            length = (head[2] & 0xFF) << 8 | (head[3] & 0xFF);
        }
        else if (len7 == 127)
        {
            length = 0;
            for (int i = 2; i < 10; i++)
            {
                length = length << 8 | (head[i] & 0xFF);
            }
        }
        // §5.1: a client masks every frame; §5.2: no extension was negotiated, so the RSV bits are 0.
        if ((b0 & 0x70) != 0 || (b1 & 0x80) == 0 || length < 0)
        {
            fail(WsCounters.PROTOCOL_ERRORS, CLOSE_PROTOCOL_ERROR);
            return;
        }
        System.arraycopy(head, need - 4, mask, 0, 4);
        if (opcode >= OP_CLOSE)
        {
            // §5.5: control frames are Close, Ping, Pong; never fragmented; at most 125 bytes.
            if (opcode > OP_PONG || !fin || length > MAX_CONTROL)
            {
                fail(WsCounters.PROTOCOL_ERRORS, CLOSE_PROTOCOL_ERROR);
                return;
            }
            if (null == control)
            {
                control = new byte[MAX_CONTROL];
            }
            controlLength = 0;
        }
        else
        {
            final boolean continuation = OP_CONTINUATION == opcode;
            // §5.4: a continuation only inside a fragmented message, a new message only outside one.
            if (opcode > OP_BINARY || continuation == (0 == messageOpcode))
            {
                fail(WsCounters.PROTOCOL_ERRORS, CLOSE_PROTOCOL_ERROR);
                return;
            }
            if (length > settings.maxFrameBytes() || messageLength + length > settings.maxMessageBytes())
            {
                fail(WsCounters.TOO_BIG, CLOSE_TOO_BIG);
                return;
            }
            if (!continuation)
            {
                messageOpcode = opcode;
            }
            // Room for what is likely to come; the rest as it arrives (readPayload), never more than was received.
            ensureRoom(messageLength + (int)Math.min(length, INITIAL_MESSAGE));
        }
        frameOpcode = opcode;
        frameFin = fin;
        payloadLeft = length;
        payloadPos = 0;
        inPayload = true;
        if (0 == length)
        {
            endFrame();
        }
    }

    private void ensureRoom(final int needed)
    {
        if (null == message || needed > message.length)
        {
            final int size = Math.min(settings.maxMessageBytes(), Math.max(needed,
                null == message ? INITIAL_MESSAGE : 2 * message.length));
            final byte[] grown = new byte[size];
            if (null != message)
            {
                System.arraycopy(message, 0, grown, 0, messageLength);
            }
            message = grown;
        }
    }

    private void readPayload(final ByteBuf in)
    {
        final int n = (int)Math.min(payloadLeft, in.readableBytes());
        final boolean isControl = frameOpcode >= OP_CLOSE;
        if (!isControl && messageLength + n > message.length)
        {
            ensureRoom(messageLength + n);
        }
        final byte[] to = isControl ? control : message;
        final int at = isControl ? controlLength : messageLength;
        // ByteBufCopy: a bulk getBytes out of a pooled direct buffer would build a ByteBuffer view (JDK 25).
        ByteBufCopy.copyOut(in, in.readerIndex(), to, at, n);
        in.skipBytes(n);
        final byte[] m = mask;
        final int pos = payloadPos;
        for (int i = 0; i < n; i++)
        {
            to[at + i] ^= m[(pos + i) & 3]; // §5.3
        }
        payloadPos += n;
        payloadLeft -= n;
        if (isControl)
        {
            controlLength += n;
        }
        else
        {
            messageLength += n;
        }
        if (0 == payloadLeft)
        {
            endFrame();
        }
    }

    private void endFrame()
    {
        inPayload = false;
        // A control frame inside a fragmented message leaves that message pending (§5.4: it may come between them).
        messagePending = frameOpcode < OP_CLOSE ? !frameFin : 0 != messageOpcode;
        switch (frameOpcode)
        {
            case OP_CLOSE ->
            {
                // §5.5.1: answer with a Close echoing the status code, then close the TCP connection.
                counters.increment(WsCounters.CLOSES_RECEIVED);
                final int code = controlLength >= 2 ? (control[0] & 0xFF) << 8 | (control[1] & 0xFF) : CLOSE_NORMAL;
                closeWith(code);
            }
            case OP_PING ->
            {
                counters.increment(WsCounters.PINGS_RECEIVED);
                writeControl(OP_PONG, control, controlLength);
                ctx.flush();
            }
            case OP_PONG -> counters.increment(WsCounters.PONGS);
            default ->
            {
                if (frameFin)
                {
                    final int length = messageLength;
                    messageLength = 0;
                    messageOpcode = 0;
                    if (!connection.onWebSocketMessage(message, length))
                    {
                        fail(WsCounters.NOT_SIP, CLOSE_PROTOCOL_ERROR);
                    }
                }
            }
        }
    }

    /** Counts, sends a Close with {@code code} after whatever was written, and closes once it is flushed. */
    private void fail(final int slot, final int code)
    {
        counters.increment(slot);
        closeWith(code);
    }

    private void closeWith(final int code)
    {
        if (closing)
        {
            return;
        }
        closing = true;
        inPayload = false;
        messageLength = 0;
        final ByteBuf frame = ctx.alloc().buffer(4);
        frame.writeByte(0x80 | OP_CLOSE).writeByte(2).writeShort(code);
        ctx.writeAndFlush(frame).addListener(ChannelFutureListener.CLOSE);
    }

    /** Writes a control frame (unmasked, server to client, §5.1) below this handler. */
    private void writeControl(final int opcode, final byte[] payload, final int length)
    {
        final ByteBuf frame = ctx.alloc().buffer(2 + length);
        frame.writeByte(0x80 | opcode).writeByte(length);
        if (length > 0)
        {
            frame.writeBytes(payload, 0, length);
        }
        ctx.write(frame, ctx.voidPromise());
    }

    /**
     * Frames each SIP message the connection writes: a FIN text-frame header (§5.2; RFC 7118 §5.1 lets SIP ride
     * text frames, which browsers hand to scripts as strings) in a pooled buffer, then the payload itself.
     */
    @Override
    public void write(final ChannelHandlerContext context, final Object msg, final ChannelPromise promise)
    {
        if (!upgraded || !(msg instanceof ByteBuf payload))
        {
            context.write(msg, promise); // the 101 (or a refusal) from the HTTP codec
            return;
        }
        final int length = payload.readableBytes();
        final ByteBuf header = context.alloc().buffer(length < 126 ? 2 : length < 65_536 ? 4 : 10);
        header.writeByte(0x80 | OP_TEXT);
        if (length < 126)
        {
            header.writeByte(length);
        }
        else if (length < 65_536)
        {
            header.writeByte(126).writeShort(length);
        }
        else
        {
            header.writeByte(127).writeLong(length);
        }
        context.write(header, context.voidPromise());
        context.write(payload, promise);
    }

    /** The first timer delay after the upgrade: the nearest of Ping, idle and message timeout; 0: no timer. */
    private long firstTimerMillis()
    {
        long first = Long.MAX_VALUE;
        for (final long period : new long[] {settings.pingMillis(), settings.idleMillis(),
            TimeUnit.NANOSECONDS.toMillis(messageTimeoutNanos)})
        {
            if (period > 0)
            {
                first = Math.min(first, period);
            }
        }
        return Long.MAX_VALUE == first ? 0 : first;
    }

    /** On the loop: the handshake deadline before the upgrade; Ping, idle close and message timeout after it. */
    private void onTimer()
    {
        timer = null;
        if (closing || !ctx.channel().isActive())
        {
            return;
        }
        if (!upgraded)
        {
            counters.increment(WsCounters.HANDSHAKE_TIMEOUTS);
            closing = true;
            ctx.close();
            return;
        }
        final long now = ticker.nanoTime();
        final long silentMillis = TimeUnit.NANOSECONDS.toMillis(now - lastInbound);
        final long idle = settings.idleMillis();
        final long ping = settings.pingMillis();
        if (idle > 0 && silentMillis >= idle)
        {
            counters.increment(WsCounters.IDLE_CLOSED);
            closeWith(CLOSE_GOING_AWAY);
            return;
        }
        long next = Long.MAX_VALUE;
        if (ping > 0)
        {
            if (silentMillis >= ping)
            {
                counters.increment(WsCounters.PINGS_SENT);
                writeControl(OP_PING, null, 0);
                ctx.flush();
                next = ping;
            }
            else
            {
                next = ping - silentMillis;
            }
        }
        if (idle > 0)
        {
            next = Math.min(next, idle - silentMillis);
        }
        if (messageTimeoutNanos > 0)
        {
            final long waited = messagePending ? now - messageStart : 0;
            if (waited >= messageTimeoutNanos)
            {
                fail(WsCounters.MESSAGE_TIMEOUTS, CLOSE_POLICY_VIOLATION);
                return;
            }
            next = Math.min(next, TimeUnit.NANOSECONDS.toMillis(messageTimeoutNanos - waited + 999_999));
        }
        timer = ctx.executor().schedule(timerTask, Math.max(1, next), TimeUnit.MILLISECONDS);
    }

    private void cancelTimer()
    {
        if (null != timer)
        {
            timer.cancel(false);
            timer = null;
        }
    }
}
