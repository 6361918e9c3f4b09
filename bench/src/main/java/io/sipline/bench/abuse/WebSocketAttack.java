package io.sipline.bench.abuse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The attacks on the server's SIP-over-WebSocket port (RFC 7118): connections that never upgrade, the upgrade request
 * a byte a second, upgrade headers that never end, many connections from one address, and, after a good upgrade, a
 * frame whose payload comes a byte a second, a frame claiming 10 MB and a message fragmented past the message limit.
 * Raw bytes on JDK sockets ({@link WsClientFrames}), in the attackers and sockets of an {@link AttackSockets}; the
 * garbage ClientHello on the WSS port is {@link ConnectionAttack}'s TLS one aimed there.
 * <p>
 * Threading: {@link #start} on the attack's thread; the rest on the attackers' virtual threads.
 */
final class WebSocketAttack
{
    private static final long HUGE = 10L * 1024 * 1024;
    private static final int SLOW = 60_000;
    private static final int FRAGMENT = 4_096;
    /** 20 fragments of 4 KiB: past the 64 KiB message limit of the server's defaults. */
    private static final int FRAGMENTS = 20;

    private final AttackSockets sockets;
    private final InetSocketAddress ws;

    WebSocketAttack(final AttackSockets sockets, final InetSocketAddress ws)
    {
        this.sockets = sockets;
        this.ws = ws;
    }

    /** Starts the attackers of {@code kind} (a WS kind); without a WS port the attack does nothing. */
    void start(final ConnectionAttack.Kind kind) throws InterruptedException
    {
        if (null == ws)
        {
            sockets.abandon();
            return;
        }
        final AttackSockets s = sockets;
        switch (kind)
        {
            case WS_IDLE -> s.spawn(10_000, 40, i -> s.idle(AttackSockets.source(i % 40), ws));
            case WS_SLOWLORIS -> s.spawn(1_000, 4, i -> s.loop(() -> slowloris(AttackSockets.source(i % 4))));
            case WS_SLOW_MESSAGE -> s.spawn(1_000, 4, i -> s.loop(() -> slowMessage(AttackSockets.source(i % 4))));
            case WS_HUGE_FRAME -> s.spawn(20, 1, i -> s.loop(() -> hugeFrame(AttackSockets.source(i % 4))));
            case WS_FRAGMENTS -> s.spawn(20, 1, i -> s.loop(() -> fragments(AttackSockets.source(i % 4))));
            case WS_ENDLESS_HEADERS -> s.spawn(20, 1, i -> s.loop(() -> endlessHeaders(AttackSockets.source(i % 4))));
            case WS_ONE_ADDRESS -> s.spawn(3_000, 1, i -> s.idle(AttackSockets.source(7), ws));
            default -> throw new IllegalArgumentException(kind.name());
        }
    }

    private void slowloris(final InetAddress from) throws IOException, InterruptedException
    {
        final byte[] request = WsClientFrames.upgrade();
        sockets.session(from, ws, s -> sockets.trickle(s, request, request.length - 2));
    }

    private void endlessHeaders(final InetAddress from) throws IOException, InterruptedException
    {
        sockets.session(from, ws, s -> sockets.endless(s, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            "X-Pad: " + "a".repeat(1_000) + "\r\n"));
    }

    /** After a good upgrade: a text frame claiming 60,000 bytes (under the limit), its payload a byte a second. */
    private void slowMessage(final InetAddress from) throws IOException, InterruptedException
    {
        sockets.session(from, ws, s ->
        {
            final OutputStream out = upgraded(s);
            final byte[] key = maskKey();
            out.write(WsClientFrames.header(true, WsClientFrames.TEXT, SLOW, key));
            final byte[] payload = "a".repeat(SLOW).getBytes(StandardCharsets.US_ASCII);
            WsClientFrames.mask(payload, key, 0);
            sockets.trickle(s, payload, payload.length);
        });
    }

    /** After a good upgrade: one text frame whose header claims 10 MB, and the 10 MB streamed behind it. */
    private void hugeFrame(final InetAddress from) throws IOException, InterruptedException
    {
        sockets.session(from, ws, s ->
        {
            final OutputStream out = upgraded(s);
            final byte[] key = maskKey();
            out.write(WsClientFrames.header(true, WsClientFrames.TEXT, HUGE, key));
            final byte[] chunk = new byte[64 * 1024];
            for (long sent = 0; sent < HUGE && sockets.running(); sent += chunk.length)
            {
                final byte[] masked = chunk.clone();
                WsClientFrames.mask(masked, key, sent);
                out.write(masked);
            }
            sockets.awaitClose(s);
        });
    }

    /** After a good upgrade: a text message in 4 KiB fragments (RFC 6455 §5.4) that sum past the message limit. */
    private void fragments(final InetAddress from) throws IOException, InterruptedException
    {
        sockets.session(from, ws, s ->
        {
            final OutputStream out = upgraded(s);
            for (int i = 0; i < FRAGMENTS && sockets.running(); i++)
            {
                final byte[] key = maskKey();
                final byte[] payload = "a".repeat(FRAGMENT).getBytes(StandardCharsets.US_ASCII);
                WsClientFrames.mask(payload, key, 0);
                out.write(WsClientFrames.header(i == FRAGMENTS - 1, 0 == i ? WsClientFrames.TEXT
                    : WsClientFrames.CONTINUATION, FRAGMENT, key));
                out.write(payload);
            }
            sockets.awaitClose(s);
        });
    }

    /**
     * Sends the upgrade request and reads the answer's head; the connection's output once it is a 101.
     *
     * @throws IOException when the server refused the upgrade or closed the connection.
     */
    private static OutputStream upgraded(final Socket s) throws IOException
    {
        final OutputStream out = s.getOutputStream();
        out.write(WsClientFrames.upgrade());
        out.flush();
        s.setSoTimeout(10_000);
        final InputStream in = s.getInputStream();
        final StringBuilder head = new StringBuilder();
        while (head.length() < 4_096 && !(head.length() >= 4 && head.lastIndexOf("\r\n\r\n") == head.length() - 4))
        {
            final int b = in.read();
            if (b < 0)
            {
                throw new IOException("closed during the upgrade");
            }
            head.append((char)b);
        }
        if (0 != head.indexOf("HTTP/1.1 101"))
        {
            throw new IOException("upgrade refused: " + head.substring(0, Math.max(0, head.indexOf("\r\n"))));
        }
        return out;
    }

    private static byte[] maskKey()
    {
        final byte[] key = new byte[4];
        ThreadLocalRandom.current().nextBytes(key);
        return key;
    }
}
