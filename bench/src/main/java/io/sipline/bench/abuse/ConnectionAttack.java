package io.sipline.bench.abuse;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * One connection attack on the server's TCP, TLS, WS or WSS port, for a given time: what it opened, how many of its
 * connections the server closed, and how many connects failed. Connections come from several loopback source
 * addresses ({@code 127.0.0.2} and up) where the attack is not a one-address one, so that the per-address cap does
 * not hide the other limits. The TCP and TLS attacks are here; the WebSocket ones are {@link WebSocketAttack}'s;
 * the sockets, attackers and tallies are {@link AttackSockets}', which closes every socket when the attack ends.
 * <p>
 * Threading: {@link #run} on one thread; the attackers on virtual threads of their own.
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
        ONE_ADDRESS("3,000 connections from one address"),
        WS_IDLE("WS: 10,000 connections never sending the upgrade"),
        WS_SLOWLORIS("WS: 1,000 connections sending the upgrade request a byte a second"),
        WS_SLOW_MESSAGE("WS: 1,000 connections upgraded, then a 60,000-byte frame's payload a byte a second"),
        WS_HUGE_FRAME("WS: a frame claiming 10 MB after the upgrade, its payload streamed (20 connections, "
            + "reconnecting)"),
        WS_FRAGMENTS("WS: 4 KiB fragments of one message past the 64 KiB message limit (20 connections, "
            + "reconnecting)"),
        WS_ENDLESS_HEADERS("WS: upgrade headers that never end (20 connections, reconnecting)"),
        WS_ONE_ADDRESS("WS: 3,000 connections from one address"),
        WSS_GARBAGE("WSS: TLS ClientHellos of garbage (20 connections, reconnecting)");

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

    /** The server's listeners under attack; {@code tls}, {@code ws} and {@code wss} are null when it has none. */
    record Targets(InetSocketAddress tcp, InetSocketAddress tls, InetSocketAddress ws, InetSocketAddress wss)
    {
    }

    private final Targets targets;
    private final AttackSockets sockets = new AttackSockets();

    ConnectionAttack(final Targets targets)
    {
        this.targets = targets;
    }

    /** Runs {@code kind} for {@code seconds}, then closes every socket it holds. */
    Result run(final Kind kind, final int seconds) throws InterruptedException
    {
        final WebSocketAttack ws = new WebSocketAttack(sockets, targets.ws());
        final AttackSockets s = sockets;
        switch (kind)
        {
            case NONE -> { }
            case IDLE -> s.spawn(10_000, 40, i -> s.idle(AttackSockets.source(i % 40), targets.tcp()));
            case SLOWLORIS -> s.spawn(1_000, 4, i -> s.loop(() -> slowloris(AttackSockets.source(i % 4))));
            case HUGE_BODY -> s.spawn(20, 1, i -> s.loop(() -> hugeBody(AttackSockets.source(i % 4))));
            case ENDLESS_HEADERS -> s.spawn(20, 1, i -> s.loop(() -> endlessHeaders(AttackSockets.source(i % 4))));
            case TLS_GARBAGE -> s.spawn(20, 1, i -> s.loop(() -> tlsGarbage(AttackSockets.source(i % 4),
                targets.tls(), i)));
            case ONE_ADDRESS -> s.spawn(3_000, 1, i -> s.idle(AttackSockets.source(7), targets.tcp()));
            case WSS_GARBAGE -> s.spawn(20, 1, i -> s.loop(() -> tlsGarbage(AttackSockets.source(i % 4),
                targets.wss(), i)));
            default -> ws.start(kind);
        }
        TimeUnit.SECONDS.sleep(seconds);
        return sockets.stop(kind);
    }

    private void slowloris(final InetAddress from) throws IOException, InterruptedException
    {
        final byte[] headers = invite(100).getBytes(StandardCharsets.US_ASCII);
        sockets.session(from, targets.tcp(), s -> sockets.trickle(s, headers, headers.length - 2));
    }

    private void hugeBody(final InetAddress from) throws IOException, InterruptedException
    {
        sockets.session(from, targets.tcp(), s ->
        {
            final OutputStream out = s.getOutputStream();
            out.write(invite(10 * 1024 * 1024).getBytes(StandardCharsets.US_ASCII));
            final byte[] chunk = new byte[64 * 1024];
            for (long sent = 0; sent < 10L * 1024 * 1024 && sockets.running(); sent += chunk.length)
            {
                out.write(chunk);
            }
            sockets.awaitClose(s);
        });
    }

    private void endlessHeaders(final InetAddress from) throws IOException, InterruptedException
    {
        sockets.session(from, targets.tcp(), s -> sockets.endless(s,
            "INVITE sip:service@127.0.0.1 SIP/2.0\r\n", "X-Pad: " + "a".repeat(1_000) + "\r\n"));
    }

    /** A TLS handshake record's type, then 2 KiB of nonsense, on the TLS or WSS port (absent: the attack ends). */
    private void tlsGarbage(final InetAddress from, final InetSocketAddress to, final int seed)
        throws IOException, InterruptedException
    {
        if (null == to)
        {
            sockets.abandon();
            return;
        }
        sockets.session(from, to, s ->
        {
            final byte[] garbage = new byte[2_048];
            new Random(seed ^ System.nanoTime()).nextBytes(garbage);
            garbage[0] = 0x16;
            s.getOutputStream().write(garbage);
            sockets.awaitClose(s);
        });
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
