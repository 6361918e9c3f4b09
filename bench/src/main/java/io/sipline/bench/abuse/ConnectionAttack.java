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
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection attack on the server's TCP or TLS port, for a given time, on virtual threads (one per attacking
 * connection, blocking sockets): what it opened, how many of its connections the server closed, and how many
 * connects failed. Connections come from several loopback source addresses ({@code 127.0.0.2} and up; Linux answers
 * for all of 127/8) where the attack is not the one-address one, so that the per-address cap does not hide the
 * other limits. Every socket is closed when the attack ends.
 * <p>
 * Threading: {@link #run} on one thread; the counters are atomic.
 */
final class ConnectionAttack
{
    /** The attacks of issue-style connection abuse, and none (the baseline). */
    enum Kind
    {
        NONE("none (baseline)"),
        IDLE("10,000 connections opened and left idle"),
        SLOWLORIS("slowloris: 1,000 connections sending a header byte a second"),
        HUGE_BODY("Content-Length of 10 MB, the body streamed (20 connections, reconnecting)"),
        ENDLESS_HEADERS("headers that never end, sent as fast as taken (20 connections, reconnecting)"),
        TLS_GARBAGE("TLS ClientHellos of garbage (20 connections, reconnecting)"),
        ONE_ADDRESS("3,000 connections from one address");

        final String description;

        Kind(final String description)
        {
            this.description = description;
        }
    }

    /** What an attack did. */
    record Result(Kind kind, long opened, long closedByServer, long connectFailures)
    {
    }

    private final InetSocketAddress tcp;
    private final InetSocketAddress tls;
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong closedByServer = new AtomicLong();
    private final AtomicLong connectFailures = new AtomicLong();
    private final List<Socket> sockets = new ArrayList<>();
    private volatile boolean running = true;

    ConnectionAttack(final InetSocketAddress tcp, final InetSocketAddress tls)
    {
        this.tcp = tcp;
        this.tls = tls;
    }

    /** Runs {@code kind} for {@code seconds}, then closes every socket it holds. */
    Result run(final Kind kind, final int seconds) throws InterruptedException
    {
        final List<Thread> threads = new ArrayList<>();
        switch (kind)
        {
            case NONE -> { }
            case IDLE -> spawn(threads, 10_000, 40, i -> idle(source(i % 40), tcp));
            case SLOWLORIS -> spawn(threads, 1_000, 4, i -> loop(() -> slowloris(source(i % 4))));
            case HUGE_BODY -> spawn(threads, 20, 1, i -> loop(() -> hugeBody(source(i % 4))));
            case ENDLESS_HEADERS -> spawn(threads, 20, 1, i -> loop(() -> endlessHeaders(source(i % 4))));
            case TLS_GARBAGE -> spawn(threads, 20, 1, i -> loop(() -> tlsGarbage(source(i % 4), i)));
            case ONE_ADDRESS -> spawn(threads, 3_000, 1, i -> idle(source(7), tcp));
            default -> throw new IllegalArgumentException(kind.name());
        }
        TimeUnit.SECONDS.sleep(seconds);
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
        return new Result(kind, opened.get(), closedByServer.get(), connectFailures.get());
    }

    @FunctionalInterface
    private interface Attacker
    {
        void attack(int index) throws IOException, InterruptedException;
    }

    @FunctionalInterface
    private interface Round
    {
        void once() throws IOException, InterruptedException;
    }

    /** Starts {@code count} attackers, a few at a time so that the accept queue is not the only thing measured. */
    private void spawn(final List<Thread> threads, final int count, final int perMillisecond, final Attacker attacker)
        throws InterruptedException
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

    private void loop(final Round round) throws InterruptedException
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

    private static InetAddress source(final int k)
    {
        return InetAddress.ofLiteral("127.0.0." + (2 + k));
    }

    private Socket connect(final InetAddress from, final InetSocketAddress to) throws IOException
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

    private void forget(final Socket s)
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

    /** Opens one connection and sends nothing; counts it when the server closes it. */
    private void idle(final InetAddress from, final InetSocketAddress to) throws IOException
    {
        final Socket s = connect(from, to);
        try (InputStream in = s.getInputStream())
        {
            while (in.read() >= 0)
            {
                // nothing is expected; read on to the close
            }
            if (running)
            {
                closedByServer.incrementAndGet();
            }
        }
        catch (final IOException e)
        {
            if (running)
            {
                closedByServer.incrementAndGet();
            }
        }
    }

    private void slowloris(final InetAddress from) throws IOException, InterruptedException
    {
        final byte[] headers = invite(100).getBytes(StandardCharsets.US_ASCII);
        final Socket s = connect(from, tcp);
        try
        {
            final OutputStream out = s.getOutputStream();
            for (int i = 0; i < headers.length - 2 && running; i++)
            {
                out.write(headers[i]);
                out.flush();
                TimeUnit.SECONDS.sleep(1);
            }
        }
        catch (final IOException e)
        {
            closedByServer.incrementAndGet();
        }
        finally
        {
            forget(s);
        }
    }

    private void hugeBody(final InetAddress from) throws IOException
    {
        final Socket s = connect(from, tcp);
        try
        {
            final OutputStream out = s.getOutputStream();
            out.write(invite(10 * 1024 * 1024).getBytes(StandardCharsets.US_ASCII));
            final byte[] chunk = new byte[64 * 1024];
            for (long sent = 0; sent < 10L * 1024 * 1024 && running; sent += chunk.length)
            {
                out.write(chunk);
            }
            awaitClose(s);
        }
        catch (final IOException e)
        {
            closedByServer.incrementAndGet();
        }
        finally
        {
            forget(s);
        }
    }

    private void endlessHeaders(final InetAddress from) throws IOException
    {
        final Socket s = connect(from, tcp);
        try
        {
            final OutputStream out = s.getOutputStream();
            out.write("INVITE sip:service@127.0.0.1 SIP/2.0\r\n".getBytes(StandardCharsets.US_ASCII));
            final byte[] line = ("X-Pad: " + "a".repeat(1_000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            while (running)
            {
                out.write(line);
            }
        }
        catch (final IOException e)
        {
            closedByServer.incrementAndGet();
        }
        finally
        {
            forget(s);
        }
    }

    private void tlsGarbage(final InetAddress from, final int seed) throws IOException
    {
        if (null == tls)
        {
            running = false;
            return;
        }
        final Socket s = connect(from, tls);
        try
        {
            final byte[] garbage = new byte[2_048];
            new Random(seed ^ System.nanoTime()).nextBytes(garbage);
            garbage[0] = 0x16; // a TLS handshake record's type, then nonsense
            s.getOutputStream().write(garbage);
            awaitClose(s);
        }
        catch (final IOException e)
        {
            closedByServer.incrementAndGet();
        }
        finally
        {
            forget(s);
        }
    }

    private void awaitClose(final Socket s) throws IOException
    {
        s.setSoTimeout(30_000);
        final InputStream in = s.getInputStream();
        while (in.read() >= 0)
        {
            // an alert or nothing: read on to the close
        }
        closedByServer.incrementAndGet();
    }

    /** An INVITE's headers declaring a body of {@code contentLength} bytes, without the body. */
    private static String invite(final int contentLength)
    {
        return "INVITE sip:service@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/TCP 127.0.0.2:5999;branch=z9hG4bK-abuse" + Long.toHexString(System.nanoTime()) + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:attacker@127.0.0.2>;tag=abuse\r\n"
            + "To: <sip:service@127.0.0.1>\r\n"
            + "Call-ID: abuse-" + Long.toHexString(System.nanoTime()) + "\r\n"
            + "CSeq: 1 INVITE\r\n"
            + "Contact: <sip:attacker@127.0.0.2:5999;transport=tcp>\r\n"
            + "Content-Type: application/sdp\r\n"
            + "Content-Length: " + contentLength + "\r\n"
            + "\r\n";
    }
}
