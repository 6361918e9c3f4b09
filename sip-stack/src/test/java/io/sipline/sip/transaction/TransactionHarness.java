package io.sipline.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.timer.TimerWheel;

/**
 * A transaction layer wired to a fake transport that records what is sent, a user that records every event, and a
 * clock the test advances. Every buffer the test or the layer allocates is tracked so that {@link #assertNoLeaks()}
 * can prove each reference was released exactly once.
 */
final class TransactionHarness implements TransactionTransport, TransactionUser, NanoClock
{
    static final long MS = 1_000_000L;
    static final long START = 5_000_000_000L;
    static final InetSocketAddress PEER = new InetSocketAddress("192.0.2.10", 5060);

    /** Records every buffer it makes (and so every one the layer builds). */
    static final class TrackingAllocator extends AbstractByteBufAllocator
    {
        final List<ByteBuf> made = new ArrayList<>();

        TrackingAllocator()
        {
            super(false);
        }

        @Override
        public boolean isDirectBufferPooled()
        {
            return false;
        }

        @Override
        protected ByteBuf newHeapBuffer(final int initialCapacity, final int maxCapacity)
        {
            final ByteBuf b = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
            made.add(b);
            return b;
        }

        @Override
        protected ByteBuf newDirectBuffer(final int initialCapacity, final int maxCapacity)
        {
            final ByteBuf b = new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity);
            made.add(b);
            return b;
        }
    }

    final TrackingAllocator allocator = new TrackingAllocator();
    final TransactionConfig config;
    final TimerWheel wheel;
    final TransactionLayer layer;
    final List<String> sent = new ArrayList<>();
    final List<InetSocketAddress> sentTo = new ArrayList<>();
    final List<String> events = new ArrayList<>();
    final SipMessageBuilder builder = new SipMessageBuilder();
    long now = START;
    /** What {@link #inputLagNs} answers: how long the input "being read now" waited (0: the transport keeps up). */
    long inputLagNs;
    boolean failSends;
    ServerTransaction lastServer;
    ClientTransaction lastClient;
    SipMessage lastRequest;

    TransactionHarness()
    {
        this(new TransactionConfig());
    }

    TransactionHarness(final TransactionConfig config)
    {
        this.config = config.allocator(allocator).initialPoolSize(4).initialTableCapacity(16);
        this.wheel = new TimerWheel(START);
        this.layer = new TransactionLayer(this.config, this, this, this, wheel);
    }

    // --- NanoClock ---------------------------------------------------------------------------------------------

    @Override
    public long nowNs()
    {
        return now;
    }

    /** Advances the clock and runs the layer's duty cycle; returns the timers fired. */
    int advanceMs(final long ms)
    {
        now += ms * MS;
        return layer.doWork(now);
    }

    // --- TransactionTransport ----------------------------------------------------------------------------------

    @Override
    public boolean send(final ByteBuf data, final InetSocketAddress destination, final boolean reliable)
    {
        if (failSends)
        {
            return false;
        }
        sent.add(data.toString(StandardCharsets.UTF_8));
        sentTo.add(destination);
        return true;
    }

    @Override
    public long inputLagNs(final long nowNs)
    {
        return inputLagNs;
    }

    /** Set: host names to locate are held in {@link #locating} until {@link #located} answers them. */
    boolean deferLocating;
    /** The transaction, its id and the host name of the last {@link #resolve} held back, or null. */
    Object[] locating;

    @Override
    public void resolve(final TransactionLayer l, final Transaction tx, final long id,
        final InetSocketAddress unresolved)
    {
        if (!deferLocating)
        {
            TransactionTransport.super.resolve(l, tx, id, unresolved);
            return;
        }
        locating = new Object[] {tx, id, unresolved};
    }

    /** Answers the held {@link #resolve} with {@code address}. */
    void located(final InetSocketAddress address)
    {
        final Object[] held = locating;
        locating = null;
        layer.resolved((Transaction)held[0], (Long)held[1], address);
    }

    /** References still held on buffers the allocator made, summed. */
    int liveReferences()
    {
        int n = 0;
        for (final ByteBuf b : allocator.made)
        {
            n += b.refCnt();
        }
        return n;
    }

    // --- TransactionUser ---------------------------------------------------------------------------------------

    @Override
    public void onRequest(final ServerTransaction tx, final SipMessage request)
    {
        lastServer = tx;
        lastRequest = request.copy();
        events.add("request " + request.methodName());
    }

    @Override
    public void onAck(final ServerTransaction tx, final SipMessage ack)
    {
        events.add("ack");
    }

    @Override
    public void onResponse(final ClientTransaction tx, final SipMessage response)
    {
        events.add("response " + response.statusCode());
    }

    @Override
    public void onStatelessRequest(final SipMessage request, final InetSocketAddress source, final boolean reliable)
    {
        events.add("stateless-request " + request.methodName());
    }

    @Override
    public void onStatelessResponse(final SipMessage response, final InetSocketAddress source)
    {
        events.add("stateless-response " + response.statusCode());
    }

    @Override
    public void onTimeout(final Transaction tx, final char timer)
    {
        events.add("timeout " + timer);
    }

    @Override
    public void onTransportError(final Transaction tx)
    {
        events.add("transport-error");
    }

    @Override
    public void onTerminated(final Transaction tx)
    {
        events.add("terminated");
    }

    // --- messages ----------------------------------------------------------------------------------------------

    static SipMessage parse(final String text)
    {
        final byte[] b = text.getBytes(StandardCharsets.UTF_8);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(b, 0, b.length, m), text);
        return m;
    }

    ByteBuf buffer(final String text)
    {
        final ByteBuf b = allocator.buffer();
        b.writeBytes(text.getBytes(StandardCharsets.UTF_8));
        return b;
    }

    /** A request as a remote UAC sends it. */
    static String request(
        final String method, final String branchParam, final String cseqMethod, final long cseq, final String toTag)
    {
        return method + " sip:bob@biloxi.example.com SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP pc33.atlanta.example.com:5060" + (null == branchParam ? "" : ";branch=" + branchParam)
            + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "To: Bob <sip:bob@biloxi.example.com>" + (null == toTag ? "" : ";tag=" + toTag) + "\r\n"
            + "From: Alice <sip:alice@atlanta.example.com>;tag=1928301774\r\n"
            + "Call-ID: a84b4c76e66710@pc33.atlanta.example.com\r\n"
            + "CSeq: " + cseq + " " + cseqMethod + "\r\n"
            + "Contact: <sip:alice@pc33.atlanta.example.com>\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    static String request(final String method, final String branch)
    {
        return request(method, branch, method, 1, null);
    }

    /** A request this side sends (client tests): our Via and a Route. */
    static String outgoing(final String method, final String branch)
    {
        return method + " sip:carol@chicago.example.com SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 198.51.100.1:5060;branch=" + branch + ";rport\r\n"
            + "Route: <sip:proxy.example.com;lr>\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:us@example.com>;tag=ourtag\r\n"
            + "To: <sip:carol@chicago.example.com>\r\n"
            + "Call-ID: call-1@198.51.100.1\r\n"
            + "CSeq: 7 " + method + "\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    /** A response to {@link #outgoing}. */
    static String response(final int status, final String branch, final String cseqMethod)
    {
        return "SIP/2.0 " + status + " Whatever\r\n"
            + "Via: SIP/2.0/UDP 198.51.100.1:5060;branch=" + branch + ";rport=5060\r\n"
            + "From: <sip:us@example.com>;tag=ourtag\r\n"
            + "To: <sip:carol@chicago.example.com>" + (status > 100 ? ";tag=theirtag" : "") + "\r\n"
            + "Call-ID: call-1@198.51.100.1\r\n"
            + "CSeq: 7 " + cseqMethod + "\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    boolean receive(final String text)
    {
        return layer.onIncoming(parse(text), PEER, false);
    }

    /** Receives a request as the transport would, with its arrival time ({@code SipMessage.receivedAtNanos}). */
    boolean receiveAt(final String text, final long receivedAtNanos)
    {
        final SipMessage m = parse(text);
        m.receivedAtNanos(receivedAtNanos);
        return layer.onIncoming(m, PEER, false);
    }

    boolean receive(final String text, final boolean reliable)
    {
        return layer.onIncoming(parse(text), PEER, reliable);
    }

    ClientTransaction send(final String text, final boolean reliable)
    {
        lastClient = layer.sendRequest(buffer(text), PEER, reliable);
        return lastClient;
    }

    /** The user answers the last request received with a response built per RFC 3261 §8.2.6.2. */
    boolean respond(final ServerTransaction tx, final int status)
    {
        final ByteBuf out = allocator.buffer();
        builder.startResponse(out, lastRequest, status, "Reason", "uastag").end(null, 0, 0);
        return layer.respond(tx, out, status);
    }

    String lastSent()
    {
        return sent.get(sent.size() - 1);
    }

    /** Every buffer made by the test or the layer has been released exactly once. */
    void assertNoLeaks()
    {
        for (int i = 0; i < allocator.made.size(); i++)
        {
            assertEquals(0, allocator.made.get(i).refCnt(), "buffer " + i + " still referenced");
        }
    }
}
