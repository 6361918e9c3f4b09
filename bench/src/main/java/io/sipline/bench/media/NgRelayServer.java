package io.sipline.bench.media;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.service.MediaAnchor;
import io.sipline.media.service.MediaProfile;
import io.sipline.media.service.RelayMediaService;

/**
 * The Sipline relay as a process of its own for {@code bin/sipline bench media}: a {@link RelayMediaService} driven
 * over UDP by the same ng control protocol the harness speaks to rtpengine, so that both relays get the same calls
 * from the same code and their CPU can be read per process from {@code /proc}. Commands: {@code ping};
 * {@code offer} (the caller's SDP; {@code transport-protocol} names the callee's profile, e.g. {@code RTP/AVP}),
 * answered with the SDP for the callee; {@code answer} (the callee's SDP), answered with the SDP for the caller;
 * {@code delete}; and {@code sipline-counters}: the packets relayed and the bytes the media threads allocated.
 * A repeated cookie gets the cached answer, not a second anchor.
 *
 * <p>Usage: {@code NgRelayServer NG_PORT PORT_MIN PORT_MAX THREADS}, all on loopback. One control thread (main);
 * the relay's own media threads carry the packets.
 */
public final class NgRelayServer
{
    /** The prefix of the relay's media thread names, whose allocation {@code sipline-counters} reports. */
    static final String MEDIA_THREAD_PREFIX = "sipline-media-";

    private final RelayMediaService media;
    private final Map<String, MediaAnchor> anchors = new HashMap<>();
    private final Map<String, byte[]> answered = new LinkedHashMap<>(64, 0.75f, false)
    {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, byte[]> eldest)
        {
            return size() > 4096;
        }
    };

    private NgRelayServer(final RelayMediaService media)
    {
        this.media = media;
    }

    public static void main(final String[] args) throws IOException
    {
        if (4 != args.length)
        {
            System.err.println("usage: NgRelayServer NG_PORT PORT_MIN PORT_MAX THREADS");
            System.exit(2);
        }
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final MediaRelaySettings settings = new MediaRelaySettings(Integer.parseInt(args[1]),
            Integer.parseInt(args[2]), loopback, null, Integer.parseInt(args[3]), 3_600_000);
        try (RelayMediaService media = RelayMediaService.startWithoutWebRtc(settings);
            DatagramSocket control = new DatagramSocket(new InetSocketAddress(loopback, Integer.parseInt(args[0]))))
        {
            new NgRelayServer(media).serve(control);
        }
    }

    private void serve(final DatagramSocket control) throws IOException
    {
        final byte[] buffer = new byte[65536];
        while (true)
        {
            final DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            control.receive(p);
            final NgClient.Frame request;
            try
            {
                request = NgClient.parse(buffer, p.getLength());
            }
            catch (final IllegalArgumentException e)
            {
                continue; // not an ng datagram: nothing to answer to
            }
            byte[] reply = answered.get(request.cookie());
            if (null == reply)
            {
                Map<String, Object> body;
                try
                {
                    body = handle(request.body());
                }
                catch (final RuntimeException e)
                {
                    body = NgClient.command("error");
                    body.remove("command");
                    body.put("result", "error");
                    body.put("error-reason", String.valueOf(e.getMessage()));
                }
                reply = NgClient.frame(request.cookie(), body);
                answered.put(request.cookie(), reply);
            }
            control.send(new DatagramPacket(reply, reply.length, p.getSocketAddress()));
        }
    }

    private Map<String, Object> handle(final Map<String, Object> request)
    {
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("result", "ok");
        final String command = String.valueOf(request.get("command"));
        final String callId = String.valueOf(request.get("call-id"));
        switch (command)
        {
            case "ping" -> out.put("result", "pong");
            case "offer" ->
            {
                if (anchors.containsKey(callId))
                {
                    throw new IllegalStateException("call " + callId + " is already anchored");
                }
                final Object proto = request.getOrDefault("transport-protocol", "RTP/AVP");
                final MediaAnchor anchor = media.anchor(String.valueOf(request.get("sdp")),
                    MediaProfile.ofProto(String.valueOf(proto)), null);
                anchors.put(callId, anchor);
                out.put("sdp", anchor.offer());
            }
            case "answer" -> out.put("sdp", anchor(callId).answer(String.valueOf(request.get("sdp"))));
            case "delete" ->
            {
                anchor(callId).end();
                anchors.remove(callId);
            }
            case "sipline-counters" ->
            {
                out.put("relayed", media.relay().relayed());
                out.put("media-allocated-bytes", mediaThreadAllocatedBytes());
                out.put("anchors", (long)media.activeAnchors());
            }
            default -> throw new IllegalArgumentException("unknown command " + command);
        }
        return out;
    }

    private MediaAnchor anchor(final String callId)
    {
        final MediaAnchor a = anchors.get(callId);
        if (null == a)
        {
            throw new IllegalStateException("unknown call " + callId);
        }
        return a;
    }

    /**
     * @return the bytes the relay's media threads have allocated since they started. The threads are found by name
     *         through thread infos without stacks, so that finding them costs the media threads nothing.
     */
    static long mediaThreadAllocatedBytes()
    {
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long[] ids = Arrays.stream(mx.getThreadInfo(mx.getAllThreadIds(), 0))
            .filter(t -> null != t && t.getThreadName().startsWith(MEDIA_THREAD_PREFIX))
            .mapToLong(ThreadInfo::getThreadId).toArray();
        long total = 0;
        for (final long b : mx.getThreadAllocatedBytes(ids))
        {
            total += Math.max(0, b);
        }
        return total;
    }
}
