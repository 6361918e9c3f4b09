package io.sipline.container.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.sipline.container.dispatch.ContainerServer;
import io.sipline.container.replication.ApplicationSnapshot;
import io.sipline.container.replication.GridWriter;
import io.sipline.container.replication.MemoryGrid;
import io.sipline.container.replication.SnapshotCodec;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.relay.RelayDrop;
import io.sipline.media.sdp.SessionDescription;
import io.sipline.media.service.MediaAnchor;
import io.sipline.media.service.MediaProfile;
import io.sipline.media.service.RelayMediaService;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.test.Sipp;

/**
 * The admin port against a real container (2 shards, UDP on 127.0.0.1 port 0, no application: OPTIONS is answered
 * 200, anything else 404): SIP datagrams move the {@code /metrics} counters by exactly what was exchanged, the text
 * is the Prometheus exposition format, {@code /health} follows the shards and the applications, and other paths and
 * methods are refused.
 */
class AdminServerTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    /** One sample line: name, optional labels, value (Prometheus text format 0.0.4). */
    private static final Pattern SAMPLE = Pattern.compile(
        "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:\\\\.|[^\"\\\\])*\",?)*\\})? "
            + "(NaN|[+-]Inf|[-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?)");
    private static final Pattern COMMENT = Pattern.compile("# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static ContainerServer container() throws Exception
    {
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        // T1 of 30 s: no timer-driven retransmission during the test, so every one counted is the one we cause.
        return ContainerServer.start(new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2)
            .t1Ns(30_000_000_000L).t2Ns(30_000_000_000L), router);
    }

    @Test
    void shouldCountExactlyTheMessagesExchangedAndServeValidExposition() throws Exception
    {
        try (ContainerServer server = container();
            AdminServer admin = AdminServer.start(new InetSocketAddress(LOOPBACK, 0), server.stack(),
                new ContainerServerStatus(server));
            DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            socket.setSoTimeout(5_000);
            final InetSocketAddress sip = server.localAddresses().getFirst();
            final Map<String, Double> before = samples(get(admin, "/metrics").body());

            final String options = request("OPTIONS", "m-options", socket.getLocalPort(), "");
            send(socket, sip, options);
            final Map<String, Integer> received = new HashMap<>();
            String last = receiveFinal(socket, received);
            assertTrue(last.startsWith("SIP/2.0 200"), last);
            send(socket, sip, options); // the same branch again: the server transaction re-sends its 200
            last = receiveFinal(socket, received);
            assertTrue(last.startsWith("SIP/2.0 200"), last);

            send(socket, sip, request("INVITE", "m-invite", socket.getLocalPort(), ""));
            last = receiveFinal(socket, received);
            assertTrue(last.startsWith("SIP/2.0 404"), last);
            final String toTag = last.substring(last.indexOf(";tag=", last.indexOf("\nTo:")) + 5).split("[\r;>]")[0];
            send(socket, sip, request("ACK", "m-invite", socket.getLocalPort(), toTag)); // §17.1.1.3: ACK the 404
            send(socket, sip, "this is not SIP\r\n\r\n");

            // Inbound counts without an answer (the ACK, the garbage) are polled for, then compared exactly.
            final AtomicReference<Map<String, Double>> after = new AtomicReference<>();
            assertTrue(Sipp.await(() ->
            {
                after.set(samples(getUnchecked(admin, "/metrics")));
                // a response can reach us before the shard that sent it has counted it (another thread)
                return delta(before, after.get(), "sipline_udp_datagrams_received_total") >= 5
                    && delta(before, after.get(), "sipline_sip_requests_received_total{method=\"ACK\"}") >= 1
                    && delta(before, after.get(), "sipline_sip_responses_sent_total{class=\"2xx\"}") >= 2
                    && delta(before, after.get(), "sipline_sip_responses_sent_total{class=\"4xx\"}") >= 1
                    && sumWhere(after.get(), "sipline_sip_messages_dropped_total", "reason=\"parse_")
                        - sumWhere(before, "sipline_sip_messages_dropped_total", "reason=\"parse_") >= 1;
            }, 5_000), "counters never reached the datagrams sent");
            final Map<String, Double> a = after.get();
            assertEquals(5, delta(before, a, "sipline_udp_datagrams_received_total"));
            assertTrue(a.keySet().stream().anyMatch(k -> k.startsWith("sipline_udp_peer_channels_opened_total")),
                "the connected-channel counters are exported");
            assertEquals(0, sumWhere(a, "sipline_udp_peer_channels_opened_total", "")
                - sumWhere(before, "sipline_udp_peer_channels_opened_total", ""),
                "5 datagrams from one peer open no connected channel (the stack waits for 32)");
            assertEquals(2, delta(before, a, "sipline_sip_requests_received_total{method=\"OPTIONS\"}"));
            assertEquals(1, delta(before, a, "sipline_sip_requests_received_total{method=\"INVITE\"}"));
            assertEquals(1, delta(before, a, "sipline_sip_requests_received_total{method=\"ACK\"}"));
            assertEquals(0, delta(before, a, "sipline_sip_requests_received_total{method=\"BYE\"}"));
            assertEquals(0, sumWhere(a, "sipline_sip_requests_sent_total", "")
                - sumWhere(before, "sipline_sip_requests_sent_total", ""));
            for (int c = 1; c <= 6; c++)
            {
                final String key = "sipline_sip_responses_sent_total{class=\"" + c + "xx\"}";
                assertEquals((double)received.getOrDefault(c + "xx", 0), delta(before, a, key), key);
                assertEquals(0, delta(before, a, "sipline_sip_responses_received_total{class=\"" + c + "xx\"}"));
            }
            assertEquals(2, received.get("2xx"));
            assertEquals(1, received.get("4xx"));
            assertEquals(1, delta(before, a, "sipline_sip_retransmissions_sent_total"));
            assertEquals(1, sumWhere(a, "sipline_sip_messages_dropped_total", "reason=\"parse_")
                - sumWhere(before, "sipline_sip_messages_dropped_total", "reason=\"parse_"));
            assertEquals(0, delta(before, a, "sipline_sip_messages_dropped_total{reason=\"handoff_queue_full\"}"));
            // The 404 is the INVITE's first final response: timed once by its server transaction (or counted as
            // untimed when the transport gave the INVITE no arrival time); the OPTIONS' 200s are not INVITE responses.
            assertEquals(1, delta(before, a, "sipline_sip_invite_response_seconds_count{response=\"3xx-6xx\"}")
                + delta(before, a, "sipline_sip_invite_responses_untimed_total{response=\"3xx-6xx\"}"));
            assertEquals(0, delta(before, a, "sipline_sip_invite_response_seconds_count{response=\"2xx\"}")
                + delta(before, a, "sipline_sip_invite_responses_untimed_total{response=\"2xx\"}")
                + delta(before, a, "sipline_sip_invite_response_seconds_count{response=\"180\"}"));
            // The client side's times are exported beside them; this server sent no INVITE, so none is timed.
            assertTrue(a.keySet().stream()
                .anyMatch(k -> k.startsWith("sipline_sip_invite_client_response_seconds_count")),
                "the client-side INVITE response times are exported");
            assertEquals(0, sumWhere(a, "sipline_sip_invite_client_response_seconds_count", "")
                - sumWhere(before, "sipline_sip_invite_client_response_seconds_count", ""));
            // No application took the OPTIONS (the container answered its 200; the retransmission got the same 200
            // from the transaction) nor the INVITE (the 404): two container events; nothing else happened.
            assertEquals(2, delta(before, a, "sipline_container_events_total{event=\"no_application\"}"));
            for (final String event : new String[] {"servlet_error", "slow_call", "stray_2xx", "routed_out"})
            {
                assertEquals(0, delta(before, a, "sipline_container_events_total{event=\"" + event + "\"}"), event);
            }
            assertNothingShed(before, a);
            assertEquals(2, sumWhere(a, "sipline_shard_up", ""));
            assertTrue(a.containsKey("sipline_sip_transactions_active"), a.keySet().toString());
            assertTrue(a.containsKey("sipline_sip_dialogs_active"));
            assertTrue(a.containsKey("sipline_shard_handoff_queue_depth"));
            assertEquals(0, a.get("sipline_sessions_active"));
            assertTrue(sumWhere(a, "sipline_jvm_gc_collections_total", "") >= 0);
            assertTrue(a.get("sipline_jvm_heap_used_bytes") > 0);
            assertTrue(a.get("sipline_jvm_direct_memory_used_bytes{pool=\"netty\"}") > 0, "the shards' pooled buffers");
            assertTrue(a.containsKey("sipline_jvm_direct_memory_used_bytes{pool=\"jdk\"}"), a.keySet().toString());
            // No TCP connection was made: the stream events are exported, all 0.
            assertEquals(0, delta(before, a, "sipline_stream_events_total{event=\"accepted\"}"));
            assertEquals(0, delta(before, a, "sipline_stream_events_total{event=\"framing_errors\"}"));
            assertTrue(a.get("sipline_jvm_allocated_bytes_total") > before.get("sipline_jvm_allocated_bytes_total"));
        }
    }

    @Test
    void shouldReportHealthFromShardsAndApplications() throws Exception
    {
        final ContainerServer server = container();
        final boolean[] started = {true};
        final ContainerStatus status = () -> List.of(new ContainerStatus.Application("b2bua", started[0], 3));
        try (AdminServer admin = AdminServer.start(new InetSocketAddress(LOOPBACK, 0), server.stack(), status))
        {
            HttpResponse<String> r = get(admin, "/health");
            assertEquals(200, r.statusCode());
            assertEquals("ok\n", r.body());
            assertEquals(3, samples(get(admin, "/metrics").body())
                .get("sipline_application_sessions_active{application=\"b2bua\"}"));

            started[0] = false;
            r = get(admin, "/health");
            assertEquals(503, r.statusCode());
            assertEquals("application b2bua is not started\n", r.body());
            assertEquals(0, samples(get(admin, "/metrics").body())
                .get("sipline_application_started{application=\"b2bua\"}"));

            started[0] = true;
            server.close(); // every shard's loop shuts down; the admin port stays up and says so
            r = get(admin, "/health");
            assertEquals(503, r.statusCode());
            assertEquals("shard 0 is not running\n", r.body());
            assertEquals(0, sumWhere(samples(get(admin, "/metrics").body()), "sipline_shard_up", ""));
        }
        finally
        {
            server.close();
        }
    }

    @Test
    void shouldRefuseOtherPathsAndMethods() throws Exception
    {
        try (ContainerServer server = container();
            AdminServer admin = AdminServer.start(new InetSocketAddress(LOOPBACK, 0), server.stack(),
                ContainerStatus.NONE))
        {
            assertEquals(404, get(admin, "/nothing").statusCode());
            assertEquals(404, get(admin, "/metrics/x").statusCode());
            final HttpResponse<String> post = http.send(HttpRequest.newBuilder(uri(admin, "/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(405, post.statusCode());
            assertEquals("GET", post.headers().firstValue("Allow").orElseThrow());
            final HttpResponse<String> head = http.send(HttpRequest.newBuilder(uri(admin, "/health"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(405, head.statusCode());
            assertEquals(200, get(admin, "/health").statusCode()); // still serving after the refusals
        }
    }

    @Test
    void shouldExposeTheContainersServletTimeHistogram() throws Exception
    {
        final ContainerStatus status = new ContainerStatus()
        {
            @Override
            public List<Application> applications()
            {
                return List.of(new Application("app", true, -1));
            }

            @Override
            public List<ServletTimes> servletTimes()
            {
                return List.of(new ServletTimes("app", new double[] {0.001, 0.01, Double.POSITIVE_INFINITY},
                    new long[] {3, 2, 1}, 0.25));
            }
        };
        try (ContainerServer server = container();
            AdminServer admin = AdminServer.start(new InetSocketAddress(LOOPBACK, 0), server.stack(), status))
        {
            final Map<String, Double> s = samples(get(admin, "/metrics").body());
            assertEquals(3, s.get("sipline_servlet_time_seconds_bucket{application=\"app\",le=\"0.001\"}"));
            assertEquals(5, s.get("sipline_servlet_time_seconds_bucket{application=\"app\",le=\"0.01\"}"));
            assertEquals(6, s.get("sipline_servlet_time_seconds_bucket{application=\"app\",le=\"+Inf\"}"));
            assertEquals(6, s.get("sipline_servlet_time_seconds_count{application=\"app\"}"));
            assertEquals(0.25, s.get("sipline_servlet_time_seconds_sum{application=\"app\"}"));
            assertTrue(!s.containsKey("sipline_application_sessions_active{application=\"app\"}"),
                "unknown sessions are omitted, not reported as a number");
        }
    }

    @Test
    void shouldExposeTheMediaRelaysCountersOnceRegistered() throws Exception
    {
        try (ContainerServer server = container();
            AdminServer admin = AdminServer.start(new InetSocketAddress(LOOPBACK, 0), server.stack(),
                ContainerStatus.NONE);
            RelayMediaService media = RelayMediaService.startWithoutWebRtc(new MediaRelaySettings(38000, 38999,
                LOOPBACK, null, 1, 0));
            DatagramSocket phoneA = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            DatagramSocket phoneB = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            assertTrue(!get(admin, "/metrics").body().contains("sipline_media_"), "no media service registered yet");
            admin.metrics().registerMedia(media, media.relay());
            final MediaAnchor anchor = media.anchor(plainOffer(phoneA.getLocalPort()), MediaProfile.RTP_AVP, null);
            final int relayForB = SessionDescription.parse(anchor.offer()).media().getFirst().port();
            final int relayForA = SessionDescription.parse(anchor.answer(plainOffer(phoneB.getLocalPort())))
                .media().getFirst().port();
            Map<String, Double> s = samples(get(admin, "/metrics").body());
            assertEquals(1, s.get("sipline_media_anchors"));
            assertEquals(2, s.get("sipline_media_port_pairs"));
            assertEquals(0, s.get("sipline_media_packets_relayed_total"));

            final byte[] rtp = new byte[172];
            rtp[0] = (byte)0x80; // RTP version 2, PCMU, sequence 0, SSRC 0
            phoneA.send(new DatagramPacket(rtp, rtp.length, new InetSocketAddress(LOOPBACK, relayForA)));
            phoneB.setSoTimeout(5_000);
            final DatagramPacket got = new DatagramPacket(new byte[2048], 2048);
            phoneB.receive(got);
            assertEquals(rtp.length, got.getLength());
            final byte[] junk = new byte[20];
            junk[0] = (byte)0xFF; // no protocol of RFC 7983 starts so
            phoneA.send(new DatagramPacket(junk, junk.length, new InetSocketAddress(LOOPBACK, relayForA)));
            final String malformed = "sipline_media_datagrams_dropped_total{reason=\"malformed\"}";
            final long deadline = System.nanoTime() + 5_000_000_000L;
            do
            {
                s = samples(get(admin, "/metrics").body());
            }
            while (s.getOrDefault(malformed, 0.0) < 1 && System.nanoTime() < deadline);
            assertEquals(1, s.get(malformed));
            assertEquals(1, s.get("sipline_media_packets_relayed_total"));
            assertEquals(1, sumWhere(s, "sipline_media_datagrams_dropped_total", ""), "one drop, one reason");
            anchor.end();
            assertEquals(0, samples(get(admin, "/metrics").body()).get("sipline_media_anchors"));
        }
    }

    @Test
    void shouldExportEveryMediaDropReasonAndCountBadPacketsUnderTheirOwn() throws Exception
    {
        try (ContainerServer server = container();
            AdminServer admin = AdminServer.start(new InetSocketAddress(LOOPBACK, 0), server.stack(),
                ContainerStatus.NONE);
            RelayMediaService media = RelayMediaService.start(new MediaRelaySettings(38000, 38999, LOOPBACK, null,
                1, 0));
            DatagramSocket phone = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            DatagramSocket stranger = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            admin.metrics().registerMedia(media, media.relay());
            final Map<String, Double> before = samples(get(admin, "/metrics").body());
            for (int r = 0; r < RelayDrop.COUNT; r++)
            {
                final String sample = "sipline_media_datagrams_dropped_total{reason=\"" + RelayDrop.name(r) + "\"}";
                assertEquals(0.0, before.get(sample), sample + " exported from the start");
            }
            // A plain RTP leg: RTP from its peer latches it; then junk, STUN, DTLS, and RTP from someone else.
            final MediaAnchor plain = media.anchor(plainOffer(phone.getLocalPort()), MediaProfile.RTP_AVP, null);
            plain.answer(plainOffer(phone.getLocalPort()));
            final InetSocketAddress plainLeg = new InetSocketAddress(LOOPBACK,
                SessionDescription.parse(plain.offer()).media().getFirst().port());
            final byte[] rtp = new byte[172];
            rtp[0] = (byte)0x80;
            datagram(phone, plainLeg, rtp);
            awaitSample(admin, "sipline_media_packets_relayed_total", 1);
            final byte[] junk = new byte[20];
            junk[0] = (byte)0xFF; // no protocol of RFC 7983 starts so
            datagram(phone, plainLeg, junk);
            datagram(phone, plainLeg, stun(StunMessageType.BINDING_REQUEST, "u:v", "password"));
            datagram(phone, plainLeg, dtlsRecord());
            datagram(stranger, plainLeg, rtp);

            // An SDES-SRTP leg: a packet whose authentication tag does not verify.
            final String sdes = plainOffer(phone.getLocalPort()).replace("RTP/AVP", "RTP/SAVP")
                + "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz\r\n";
            final MediaAnchor srtp = media.anchor(sdes, MediaProfile.RTP_AVP, null);
            final int srtpLeg = SessionDescription.parse(srtp.answer(plainOffer(phone.getLocalPort()))).media()
                .getFirst().port();
            datagram(phone, new InetSocketAddress(LOOPBACK, srtpLeg), rtp);

            // A WebRTC leg: ICE checks with a wrong password, without credentials, with a bad FINGERPRINT, an
            // indication; DTLS from an address no valid check came from.
            final MediaAnchor webRtc = media.anchor(plainOffer(phone.getLocalPort()), MediaProfile.WEBRTC, null);
            final String toBrowser = webRtc.offer();
            final InetSocketAddress webRtcLeg = new InetSocketAddress(LOOPBACK,
                SessionDescription.parse(toBrowser).media().getFirst().port());
            final Matcher ufrag = Pattern.compile("a=ice-ufrag:(\\S+)").matcher(toBrowser);
            assertTrue(ufrag.find(), toBrowser);
            datagram(phone, webRtcLeg, stun(StunMessageType.BINDING_REQUEST, ufrag.group(1) + ":brws",
                "notTheRelayPassword0000"));
            datagram(phone, webRtcLeg, stun(StunMessageType.BINDING_REQUEST, null, null));
            datagram(phone, webRtcLeg, stun(StunMessageType.BINDING_INDICATION, null, null));
            final byte[] badFingerprint = stun(StunMessageType.BINDING_REQUEST, ufrag.group(1) + ":brws",
                "notTheRelayPassword0000");
            badFingerprint[badFingerprint.length - 1] ^= 1; // RFC 8489 §14.7: the CRC does not match, no answer
            datagram(phone, webRtcLeg, badFingerprint);
            datagram(phone, webRtcLeg, dtlsRecord());

            final Map<String, Integer> expected = new LinkedHashMap<>();
            for (final String reason : new String[] {"malformed", "stun-unexpected", "dtls-unexpected",
                "wrong-source", "auth-fail", "stun-unauthenticated", "stun-rejected", "dtls-unchecked"})
            {
                expected.put(reason, 1);
            }
            expected.put("stun-unanswered", 2);
            Map<String, Double> s = Map.of();
            for (final Map.Entry<String, Integer> e : expected.entrySet())
            {
                s = awaitSample(admin, "sipline_media_datagrams_dropped_total{reason=\"" + e.getKey() + "\"}",
                    e.getValue());
            }
            final int sent = expected.values().stream().mapToInt(Integer::intValue).sum();
            assertEquals(sent, sumWhere(s, "sipline_media_datagrams_dropped_total", ""),
                "each bad datagram counted once, under its own reason: " + s);
            assertEquals(0, s.get("sipline_media_thread_errors_total"), "nothing thrown on the media thread");
            plain.end();
            srtp.end();
            webRtc.end();
        }
    }

    @Test
    void shouldExposeTheGridWritersCountersOnceRegistered() throws Exception
    {
        final MemoryGrid grid = new MemoryGrid();
        final ApplicationSnapshot call = new ApplicationSnapshot("app-1", "b2bua", 1, 1, 1L, 0L, Map.of(), List.of(),
            List.of());
        try (ContainerServer server = container();
            AdminServer admin = AdminServer.start(new InetSocketAddress(LOOPBACK, 0), server.stack(),
                ContainerStatus.NONE);
            GridWriter writer = new GridWriter(grid.member(1), 1, new PrintWriter(new StringWriter())))
        {
            assertTrue(!get(admin, "/metrics").body().contains("sipline_grid_"), "no grid registered yet");
            admin.metrics().registerGrid(writer);
            writer.write(call);
            writer.write(call);
            writer.remove("app-1");
            awaitSample(admin, "sipline_grid_sessions_removed_total", 1);
            // The writer's counts are taken on its own threads: wait for the second write's bytes too.
            final Map<String, Double> s = awaitSample(admin, "sipline_grid_bytes_written_total",
                2.0 * SnapshotCodec.encode(call).length);
            assertEquals(1, s.get("sipline_grid_sessions_removed_total"));
            assertEquals(2, s.get("sipline_grid_snapshots_written_total"));
            assertEquals(2.0 * SnapshotCodec.encode(call).length, s.get("sipline_grid_bytes_written_total"));
            assertEquals(0, s.get("sipline_grid_operations_dropped_total"));
            assertEquals(0, s.get("sipline_grid_operations_failed_total"));
            assertEquals(0, s.get("sipline_grid_calls_adopted_total"));
            assertTrue(!s.containsKey("sipline_grid_bytes_sent_total"), "a grid that sends nothing has no such count");
        }
    }

    /** Polls /metrics until {@code sample} reaches {@code atLeast} (the media thread counts asynchronously). */
    private Map<String, Double> awaitSample(final AdminServer admin, final String sample, final double atLeast)
        throws Exception
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        Map<String, Double> s;
        do
        {
            s = samples(get(admin, "/metrics").body());
        }
        while (s.getOrDefault(sample, 0.0) < atLeast && System.nanoTime() < deadline);
        assertEquals(atLeast, s.getOrDefault(sample, 0.0), sample);
        return s;
    }

    private static void datagram(final DatagramSocket from, final InetSocketAddress to, final byte[] bytes)
        throws Exception
    {
        from.send(new DatagramPacket(bytes, bytes.length, to));
    }

    /** A STUN message with USERNAME, MESSAGE-INTEGRITY and FINGERPRINT, or with none of them when no username. */
    private static byte[] stun(final int type, final String username, final String password)
    {
        final byte[] out = new byte[256];
        final StunMessageWriter writer = new StunMessageWriter().wrap(out, 0, out.length).header(type, 7, 42);
        if (null != username)
        {
            final StunIntegrity integrity = new StunIntegrity();
            writer.addAscii(StunAttributeType.USERNAME, username)
                .addMessageIntegrity(integrity, StunCredential.shortTerm(password)).addFingerprint(integrity);
        }
        return Arrays.copyOf(out, writer.length());
    }

    /** The start of a DTLS 1.2 handshake record (RFC 7983 §7: a first octet of 20-63 is DTLS). */
    private static byte[] dtlsRecord()
    {
        final byte[] record = new byte[40];
        record[0] = 22;
        record[1] = (byte)0xFE;
        record[2] = (byte)0xFD;
        return record;
    }

    private static String plainOffer(final int port)
    {
        return "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio " + port
            + " RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n";
    }

    // ----------------------------------------------------------------------------------------------------------------

    private static URI uri(final AdminServer admin, final String path)
    {
        return URI.create("http://127.0.0.1:" + admin.port() + path);
    }

    private HttpResponse<String> get(final AdminServer admin, final String path) throws Exception
    {
        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri(admin, path)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        if ("/metrics".equals(path) && 200 == r.statusCode())
        {
            assertEquals("text/plain; version=0.0.4; charset=utf-8",
                r.headers().firstValue("Content-Type").orElseThrow());
        }
        return r;
    }

    private String getUnchecked(final AdminServer admin, final String path)
    {
        try
        {
            return get(admin, path).body();
        }
        catch (final Exception e)
        {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Parses the exposition (every line must be a HELP/TYPE comment or a sample) into "name{labels but shard}" →
     * value, summed over the {@code shard} label.
     */
    private static Map<String, Double> samples(final String text)
    {
        final Map<String, Double> map = new HashMap<>();
        for (final String line : text.split("\n"))
        {
            if (line.startsWith("#"))
            {
                assertTrue(COMMENT.matcher(line).matches(), line);
                continue;
            }
            final Matcher m = SAMPLE.matcher(line);
            assertTrue(m.matches(), "not a sample line: " + line);
            String labels = null == m.group(2) ? "" : m.group(2).replaceAll("shard=\"[0-9]+\",?", "");
            labels = labels.replace(",}", "}");
            final String key = m.group(1) + ("{}".equals(labels) ? "" : labels);
            map.merge(key, Double.parseDouble(m.group(3).replace("Inf", "Infinity")), Double::sum);
        }
        assertTrue(!map.isEmpty());
        return map;
    }

    /** Overload control refused nothing: its stateless refusals are exported, by method, at 0. */
    private static void assertNothingShed(final Map<String, Double> before, final Map<String, Double> a)
    {
        assertEquals(0, delta(before, a, "sipline_sip_requests_shed_total{method=\"INVITE\"}"));
        assertEquals(0, delta(before, a, "sipline_sip_requests_shed_total{method=\"INVITE_again\"}"));
        assertEquals(0, sumWhere(a, "sipline_sip_requests_shed_total", ""));
        assertEquals(0, delta(before, a, "sipline_sip_shed_acks_absorbed_total"));
        assertEquals(0, delta(before, a, "sipline_sip_shed_cancels_answered_total"));
    }

    private static double delta(final Map<String, Double> before, final Map<String, Double> after, final String key)
    {
        assertTrue(after.containsKey(key), key + " missing");
        return after.get(key) - before.getOrDefault(key, 0.0);
    }

    private static double sumWhere(final Map<String, Double> s, final String name, final String labelPart)
    {
        double n = 0;
        for (final Map.Entry<String, Double> e : s.entrySet())
        {
            final String k = e.getKey();
            if ((k.equals(name) || k.startsWith(name + "{")) && k.contains(labelPart))
            {
                n += e.getValue();
            }
        }
        return n;
    }

    private static void send(final DatagramSocket socket, final InetSocketAddress to, final String text)
        throws Exception
    {
        final byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        socket.send(new DatagramPacket(b, b.length, to));
    }

    /** Receives up to the first final response, counting every response by class into {@code received}. */
    private static String receiveFinal(final DatagramSocket socket, final Map<String, Integer> received)
        throws Exception
    {
        final byte[] in = new byte[4096];
        for (int i = 0; i < 5; i++)
        {
            final DatagramPacket p = new DatagramPacket(in, in.length);
            socket.receive(p);
            final String text = new String(in, 0, p.getLength(), StandardCharsets.US_ASCII);
            received.merge(text.charAt(8) + "xx", 1, Integer::sum);
            if (text.charAt(8) != '1')
            {
                return text;
            }
        }
        throw new AssertionError("no final response in 5 datagrams");
    }

    private static String request(final String method, final String callId, final int port, final String toTag)
    {
        return method + " sip:service@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bK-" + callId + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@127.0.0.1>;tag=a1\r\n"
            + "To: <sip:service@127.0.0.1>" + (toTag.isEmpty() ? "" : ";tag=" + toTag) + "\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: 1 " + method + "\r\n"
            + "Contact: <sip:alice@127.0.0.1:" + port + ">\r\n"
            + "Content-Length: 0\r\n\r\n";
    }
}
