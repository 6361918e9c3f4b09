package io.sipline.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A SIP user agent on one UDP socket on loopback, for tests to play callers and callees (RFC 3261): it sends
 * requests with a fresh Via branch ({@code z9hG4bK}, §8.1.1.7), From tag and Call-ID, matches responses to their
 * client transaction by branch and CSeq method (§17.1.3), matches retransmitted requests to their server
 * transaction and answers them with the last response sent (§17.2), acknowledges non-2xx final responses to
 * INVITE itself (§17.1.1.3) and re-sends its ACK when a 2xx is retransmitted (§13.2.2.4). Dialogs keep the route
 * set and remote target (§12.1) so that ACK, BYE and re-INVITE follow Record-Route; loose routing only.
 * <p>
 * It does not retransmit its own requests: on loopback a datagram is not lost, and a test waits with a deadline.
 * Every wait ends with an {@link AssertionError} that says what arrived instead.
 * <p>
 * Threading: a reader thread per agent receives and matches; the test's thread sends and waits. Both meet under
 * this object's monitor. {@link #close()} closes the socket and ends the reader.
 */
public final class UserAgent implements AutoCloseable
{
    /** How long {@code expect...} waits unless told otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final HexFormat HEX = HexFormat.of();

    private final String user;
    private final DatagramSocket socket;
    private final Thread reader;
    private final Map<String, ClientTransaction> clients = new HashMap<>();
    private final Map<String, ServerTransaction> servers = new HashMap<>();
    private final List<ServerTransaction> unclaimed = new ArrayList<>();
    private final List<String> strays = new ArrayList<>();
    private InetSocketAddress outboundProxy;
    private Duration timeout = DEFAULT_TIMEOUT;
    private volatile boolean closed;

    private UserAgent(final String user, final DatagramSocket socket)
    {
        this.user = user;
        this.socket = socket;
        this.reader = Thread.ofPlatform().daemon().name("sipline-ua-" + user + "-" + socket.getLocalPort())
            .unstarted(this::read);
    }

    /**
     * An agent for {@code user} on a free loopback port.
     *
     * @throws UncheckedIOException when no socket can be bound.
     */
    public static UserAgent open(final String user)
    {
        try
        {
            final UserAgent agent = new UserAgent(user, new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)));
            agent.reader.start();
            return agent;
        }
        catch (final SocketException e)
        {
            throw new UncheckedIOException("cannot bind a UDP socket on loopback", e);
        }
    }

    public String user()
    {
        return user;
    }

    public InetSocketAddress address()
    {
        return new InetSocketAddress(LOOPBACK, socket.getLocalPort());
    }

    /** This agent's own URI, {@code sip:user@127.0.0.1:port}: its address-of-record and contact. */
    public String uri()
    {
        return uri(user);
    }

    /** A URI for {@code someone} at this agent's address. */
    public String uri(final String someone)
    {
        return "sip:" + someone + "@" + LOOPBACK.getHostAddress() + ":" + socket.getLocalPort();
    }

    /** Out-of-dialog requests without a Route go to {@code proxy} rather than to their Request-URI. */
    public UserAgent outboundProxy(final InetSocketAddress proxy)
    {
        synchronized (this)
        {
            this.outboundProxy = proxy;
        }
        return this;
    }

    /** How long the {@code expect} methods wait from now on. */
    public UserAgent timeout(final Duration value)
    {
        synchronized (this)
        {
            this.timeout = value;
        }
        return this;
    }

    /**
     * A new out-of-dialog request (§8.1.1): To the Request-URI, From this agent with a new tag, a new Call-ID,
     * CSeq 1, Max-Forwards 70 and this agent's Contact. {@link #send} adds the Via. Change it before sending.
     */
    public SipMessage createRequest(final String method, final String requestUri)
    {
        return SipMessage.request(method, requestUri)
            .add("Max-Forwards", "70")
            .add("From", "<" + uri() + ">;tag=" + newTag())
            .add("To", "<" + requestUri + ">")
            .add("Call-ID", HEX.formatHex(random(12)) + "@" + LOOPBACK.getHostAddress())
            .add("CSeq", "1 " + method)
            .add("Contact", "<" + uri() + ">");
    }

    /** Sends an INVITE without a body to {@code requestUri}. */
    public ClientTransaction invite(final String requestUri)
    {
        return send(createRequest("INVITE", requestUri));
    }

    /**
     * Sends a REGISTER for this agent's address-of-record to {@code registrarUri} (RFC 3261 §10.2): To and From
     * the address-of-record, Contact this agent with {@code expires} seconds (0 removes the binding).
     */
    public ClientTransaction register(final String registrarUri, final int expires)
    {
        return register(registrarUri, uri(), expires);
    }

    /**
     * Sends a REGISTER binding {@code addressOfRecord} (e.g. {@code sip:bob@example.com}) to this agent's contact
     * for {@code expires} seconds (0 removes the binding), To and From the address-of-record (RFC 3261 §10.2).
     */
    public ClientTransaction register(final String registrarUri, final String addressOfRecord, final int expires)
    {
        final SipMessage register = createRequest("REGISTER", registrarUri)
            .set("From", "<" + addressOfRecord + ">;tag=" + newTag())
            .set("To", "<" + addressOfRecord + ">")
            .set("Contact", "<" + uri() + ">;expires=" + expires);
        return send(register);
    }

    /**
     * Sends {@code request} with a new top Via (a new branch) to its first Route, else the outbound proxy, else
     * its Request-URI, and returns its client transaction.
     */
    public ClientTransaction send(final SipMessage request)
    {
        final List<String> routes = request.headers("Route");
        final InetSocketAddress destination;
        synchronized (this)
        {
            destination = !routes.isEmpty() ? SipUris.hostPort(SipMessage.uri(routes.getFirst()))
                : null != outboundProxy ? outboundProxy : SipUris.hostPort(request.requestUri());
        }
        return send(request, destination);
    }

    /** Sends {@code request} to {@code destination} with a new top Via. */
    ClientTransaction send(final SipMessage request, final InetSocketAddress destination)
    {
        final List<String> vias = request.headers("Via");
        request.remove("Via");
        request.add("Via", via(newBranch()));
        for (final String via : vias)
        {
            request.add("Via", via);
        }
        return sendWithVia(request, destination);
    }

    /** Sends a request whose top Via is already set (CANCEL, the ACK of a non-2xx) as a client transaction. */
    ClientTransaction sendWithVia(final SipMessage request, final InetSocketAddress destination)
    {
        final ClientTransaction transaction = new ClientTransaction(this, request.copy(), destination);
        synchronized (this)
        {
            clients.put(key(request.branch(), request.method()), transaction);
        }
        transmit(request, destination);
        return transaction;
    }

    /** Waits for a request of {@code method} that no test has claimed yet (the default timeout). */
    public ServerTransaction expectRequest(final String method)
    {
        final Duration wait;
        synchronized (this)
        {
            wait = timeout;
        }
        return expectRequest(method, wait);
    }

    /**
     * Waits up to {@code wait} for a request of {@code method} that no test has claimed yet, and claims it; requests
     * of other methods stay for later calls.
     *
     * @throws AssertionError when none arrives in time, naming what did.
     */
    public ServerTransaction expectRequest(final String method, final Duration wait)
    {
        final long deadline = System.nanoTime() + wait.toNanos();
        synchronized (this)
        {
            while (true)
            {
                for (final Iterator<ServerTransaction> i = unclaimed.iterator(); i.hasNext(); )
                {
                    final ServerTransaction next = i.next();
                    if (next.request().method().equalsIgnoreCase(method))
                    {
                        i.remove();
                        return next;
                    }
                }
                final long left = deadline - System.nanoTime();
                if (left <= 0 || closed)
                {
                    throw new AssertionError(user + ": no " + method + " request within " + wait.toMillis()
                        + " ms; unclaimed requests: " + startLines(unclaimed) + "; unmatched responses: " + strays);
                }
                waitNanos(left);
            }
        }
    }

    /**
     * Asserts that no request of {@code method} arrives within {@code wait} (one already waiting fails at once).
     */
    public void expectNoRequest(final String method, final Duration wait)
    {
        final long deadline = System.nanoTime() + wait.toNanos();
        synchronized (this)
        {
            while (true)
            {
                for (final ServerTransaction next : unclaimed)
                {
                    if (next.request().method().equalsIgnoreCase(method))
                    {
                        throw new AssertionError(user + ": unexpected request " + next.request().startLine());
                    }
                }
                final long left = deadline - System.nanoTime();
                if (left <= 0 || closed)
                {
                    return;
                }
                waitNanos(left);
            }
        }
    }

    /** Waits on this monitor (held by the caller) for up to {@code nanos}. */
    void waitNanos(final long nanos)
    {
        try
        {
            wait(Math.max(1, nanos / 1_000_000L));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(user + ": interrupted while waiting", e);
        }
    }

    Duration timeout()
    {
        synchronized (this)
        {
            return timeout;
        }
    }

    /** The Via header value of this agent with {@code branch} ({@code rport}: answer to the source, RFC 3581). */
    String via(final String branch)
    {
        return "SIP/2.0/UDP " + LOOPBACK.getHostAddress() + ":" + socket.getLocalPort() + ";branch=" + branch
            + ";rport";
    }

    /** Sends one message as one datagram. */
    void transmit(final SipMessage message, final InetSocketAddress destination)
    {
        final byte[] bytes = message.toString().getBytes(StandardCharsets.UTF_8);
        try
        {
            socket.send(new DatagramPacket(bytes, bytes.length, destination));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(user + ": cannot send " + message.startLine() + " to " + destination, e);
        }
    }

    static String newBranch()
    {
        return "z9hG4bK" + HEX.formatHex(random(8));
    }

    static String newTag()
    {
        return HEX.formatHex(random(4));
    }

    private static byte[] random(final int n)
    {
        final byte[] bytes = new byte[n];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }

    private static String key(final String branch, final String method)
    {
        return branch + " " + method.toUpperCase(java.util.Locale.ROOT);
    }

    private static List<String> startLines(final List<ServerTransaction> transactions)
    {
        final List<String> lines = new ArrayList<>();
        for (final ServerTransaction t : transactions)
        {
            lines.add(t.request().startLine());
        }
        return lines;
    }

    /** The reader thread: receives, parses and matches until the socket closes. */
    private void read()
    {
        final byte[] buffer = new byte[65_535];
        while (!closed)
        {
            final DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            try
            {
                socket.receive(packet);
            }
            catch (final IOException e)
            {
                return; // closed
            }
            final String text = new String(buffer, 0, packet.getLength(), StandardCharsets.UTF_8);
            if (text.isBlank())
            {
                continue; // a keep-alive (RFC 5626 §3.5.1)
            }
            final InetSocketAddress source = (InetSocketAddress)packet.getSocketAddress();
            try
            {
                final SipMessage message = SipMessage.parse(text);
                if (message.isRequest())
                {
                    onRequest(message, source);
                }
                else
                {
                    onResponse(message);
                }
            }
            catch (final RuntimeException e)
            {
                synchronized (this)
                {
                    strays.add("unreadable from " + source + ": " + e.getMessage());
                    notifyAll();
                }
            }
        }
    }

    private void onRequest(final SipMessage request, final InetSocketAddress source)
    {
        final String method = request.method();
        final String key = key(request.branch(), method);
        synchronized (this)
        {
            final ServerTransaction known = servers.get(key);
            if (null != known)
            {
                known.retransmitted(); // §17.2.1 / §17.2.2: answer again with the last response
                return;
            }
            if ("ACK".equals(method))
            {
                final ServerTransaction invite = servers.get(key(request.branch(), "INVITE"));
                if (null != invite && invite.finalStatus() >= 300)
                {
                    return; // the ACK of a non-2xx final response ends the INVITE server transaction (§17.2.1)
                }
            }
            final ServerTransaction transaction = new ServerTransaction(this, request, source);
            servers.put(key, transaction);
            unclaimed.add(transaction);
            notifyAll();
        }
    }

    private void onResponse(final SipMessage response)
    {
        final ClientTransaction transaction;
        synchronized (this)
        {
            transaction = clients.get(key(response.branch(), response.method()));
            if (null == transaction)
            {
                strays.add(response.startLine() + " (" + response.method() + ", branch " + response.branch() + ")");
                notifyAll();
                return;
            }
        }
        transaction.received(response);
    }

    /** Closes the socket; the reader ends; waits fail at once. */
    @Override
    public void close()
    {
        closed = true;
        socket.close();
        synchronized (this)
        {
            notifyAll();
        }
        try
        {
            reader.join(Duration.ofSeconds(2));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString()
    {
        return user + "@" + address();
    }
}
