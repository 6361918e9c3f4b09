package io.sipline.bench.abuse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sockets and tallies of one connection attack: the attackers' virtual threads (one per attacking connection,
 * blocking sockets), every socket they hold, what they opened, how many the server closed and how many connects
 * failed. The attacks themselves ({@link ConnectionAttack}, {@link WebSocketAttack}) open their connections here and
 * hand them back through {@link #forget}; {@link #stop} ends the attack and closes whatever is still open.
 * <p>
 * Threading: {@link #spawn} and {@link #stop} on the attack's thread; the rest on the attackers' threads (the counters
 * are atomic, the socket list is guarded by itself).
 */
final class AttackSockets
{
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong closedByServer = new AtomicLong();
    private final AtomicLong connectFailures = new AtomicLong();
    private final List<Socket> sockets = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    /** One attacking connection (or loop of them), given its index among the attackers. */
    @FunctionalInterface
    interface Attacker
    {
        void attack(int index) throws IOException, InterruptedException;
    }

    /** One round of a reconnecting attacker. */
    @FunctionalInterface
    interface Round
    {
        void once() throws IOException, InterruptedException;
    }

    /** What an attacker does with one connection; an {@link IOException} is the server closing it. */
    @FunctionalInterface
    interface Session
    {
        void use(Socket socket) throws IOException, InterruptedException;
    }

    boolean running()
    {
        return running;
    }

    /** Ends the attack early (a target it needs is absent). */
    void abandon()
    {
        running = false;
    }

    /** Starts {@code count} attackers, a few at a time so that the accept queue is not the only thing measured. */
    void spawn(final int count, final int perMillisecond, final Attacker attacker) throws InterruptedException
    {
        for (int i = 0; i < count && running; i++)
        {
            final int index = i;
            threads.add(Thread.ofVirtual().start(() ->
            {
                try
                {
                    attacker.attack(index);
                }
                catch (final IOException | InterruptedException e)
                {
                    // the attack ended or its socket failed: counted where it happened
                }
            }));
            if (i % perMillisecond == 0)
            {
                TimeUnit.MICROSECONDS.sleep(500);
            }
        }
    }

    /** Runs {@code round} again and again until the attack ends. */
    void loop(final Round round) throws InterruptedException
    {
        while (running)
        {
            try
            {
                round.once();
            }
            catch (final IOException e)
            {
                // the server closed or refused it: next round
            }
        }
    }

    /** Ends the attack: closes every socket still held and waits for the attackers. */
    ConnectionAttack.Result stop(final ConnectionAttack.Kind kind) throws InterruptedException
    {
        running = false;
        synchronized (sockets)
        {
            for (final Socket s : sockets)
            {
                try
                {
                    s.close();
                }
                catch (final IOException ignored)
                {
                    // closing: nothing to do
                }
            }
        }
        for (final Thread t : threads)
        {
            t.join(10_000);
        }
        return new ConnectionAttack.Result(kind, opened.get(), closedByServer.get(), connectFailures.get());
    }

    /** A loopback source address, {@code 127.0.0.2} and up (Linux answers for all of 127/8). */
    static InetAddress source(final int k)
    {
        return InetAddress.ofLiteral("127.0.0." + (2 + k));
    }

    /** A connection from {@code from} to {@code to}, held until {@link #forget} or {@link #stop}. */
    Socket connect(final InetAddress from, final InetSocketAddress to) throws IOException
    {
        final Socket s = new Socket();
        try
        {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(to, 5_000);
        }
        catch (final IOException e)
        {
            connectFailures.incrementAndGet();
            s.close();
            throw e;
        }
        opened.incrementAndGet();
        synchronized (sockets)
        {
            sockets.add(s);
        }
        return s;
    }

    /**
     * Connects from {@code from} to {@code to} and runs {@code session} on the connection; an {@link IOException} of
     * the session is counted as the server's close. The socket is closed after.
     */
    void session(final InetAddress from, final InetSocketAddress to, final Session session)
        throws IOException, InterruptedException
    {
        final Socket s = connect(from, to);
        try
        {
            session.use(s);
        }
        catch (final IOException e)
        {
            closedByServer();
        }
        finally
        {
            forget(s);
        }
    }

    /** Closes {@code s} and lets it go. */
    void forget(final Socket s)
    {
        synchronized (sockets)
        {
            sockets.remove(s);
        }
        try
        {
            s.close();
        }
        catch (final IOException ignored)
        {
            // already closed
        }
    }

    /** Counts a connection the server closed (or reset) while the attack ran. */
    void closedByServer()
    {
        if (running)
        {
            closedByServer.incrementAndGet();
        }
    }

    /** Opens one connection and sends nothing; counts it when the server closes it. */
    void idle(final InetAddress from, final InetSocketAddress to) throws IOException
    {
        final Socket s = connect(from, to);
        try (InputStream in = s.getInputStream())
        {
            while (in.read() >= 0)
            {
                // nothing is expected; read on to the close
            }
            closedByServer();
        }
        catch (final IOException e)
        {
            closedByServer();
        }
    }

    /** Sends {@code bytes[0, count)} a byte a second while the attack runs (slowloris). */
    void trickle(final Socket s, final byte[] bytes, final int count) throws IOException, InterruptedException
    {
        final OutputStream out = s.getOutputStream();
        for (int i = 0; i < count && running; i++)
        {
            out.write(bytes[i]);
            out.flush();
            TimeUnit.SECONDS.sleep(1);
        }
    }

    /** Sends {@code first}, then {@code line} again and again as fast as the server takes them, while it runs. */
    void endless(final Socket s, final String first, final String line) throws IOException
    {
        final OutputStream out = s.getOutputStream();
        out.write(first.getBytes(StandardCharsets.US_ASCII));
        final byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
        while (running)
        {
            out.write(bytes);
        }
    }

    /** Reads what the server sends until it closes (30 s at most), and counts the close. */
    void awaitClose(final Socket s) throws IOException
    {
        s.setSoTimeout(30_000);
        final InputStream in = s.getInputStream();
        while (in.read() >= 0)
        {
            // an alert, a refusal, a Close frame or nothing: read on to the close
        }
        closedByServer();
    }
}
