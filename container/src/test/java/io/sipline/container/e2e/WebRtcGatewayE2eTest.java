package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The webrtc-gateway example with a real browser: headless Chromium (the Debian {@code chromium}, with a fake
 * microphone and no permission prompt) driven by puppeteer-core from npm loads the example's page from the server's
 * HTTP half; SIP.js in the page talks SIP over WebSocket; the application anchors the media in the server's media
 * service, DTLS-SRTP and ICE-lite toward the browser, plain RTP toward a sipp that echoes it ({@code -rtp_echo}).
 * <ul>
 *   <li>the browser calls sipp's UAS: the call is established (200, ACK) unbundled (the browser offers
 *       {@code a=group:BUNDLE}, the gateway's answer leaves it out, RFC 9143 §7.3.3) with Opus (sipp answers
 *       {@code opus/48000/2}, which the anchor offered it as the browser did, and echoes it; the browser's
 *       {@code getStats()} names Opus for both directions, relayed without transcoding), the browser's ICE and DTLS
 *       reach connected, and in 5 s of its {@code getStats()} the browser sends over 100 audio packets and receives
 *       over 100 back (its own audio relayed to sipp as plain RTP, echoed, relayed back as SRTP: sipp received each
 *       of them) with under 2 % lost, while sipp re-INVITEs the browser (a second into the call, answered by the
 *       browser through the anchor). Then the browser puts the call on hold and resumes it (sipp checks a=sendonly
 *       then a=sendrecv in the offers it gets; the browser's transceiver is sendonly, then sendrecv, and it goes on
 *       sending while held, RFC 3264 §8.4), and media flows again (over 50 packets each way at the browser and
 *       over 50 relayed in 2 s); the browser restarts ICE ({@code pc.restartIce()} and a re-INVITE with its new
 *       credentials, RFC 8839 §4.4.1.1.1: the gateway answers with new credentials of its own, the browser selects a
 *       pair of the new ICE generation, checked against the gateway's new credentials, on the same DTLS
 *       association) and media flows again (over 50 packets each way at the browser and over 50 relayed in 2 s).
 *       Its BYE reaches sipp, and the anchor and every media port are freed;</li>
 *   <li>a sipp UAC calls the browser, registered over WebSocket, which answers: the same media checks (PCMU both
 *       ways, the one codec sipp offers), then sipp's BYE ends the call in the browser and the anchor is freed.</li>
 * </ul>
 * The browser dials sipp with {@code ;transport=udp}: the INVITE carrying the anchor's offer for a browser's
 * streams is over 1300 bytes, which would otherwise go over TCP (RFC 3261 §18.1.1), where sipp does not listen.
 * Every process (server, sipp, node and the Chromium it started) is stopped by its id. Skipped only when chromium is
 * not installed.
 */
class WebRtcGatewayE2eTest
{
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Pattern WS = Pattern.compile("sipline: listening on ws 127\\.0\\.0\\.1:(\\d+) .*");
    private static final Pattern STATS = Pattern.compile("STATS sent=(\\d+) received=(\\d+) lost=(-?\\d+)");
    private static final Pattern ADMIN = Pattern.compile("sipline: admin on http://([^ ]+) ");
    private static final Pattern RELAYED = Pattern.compile("(?m)^sipline_media_packets_relayed_total ([0-9.E]+)$");
    private static final Pattern PORT_PAIRS = Pattern.compile("(?m)^sipline_media_port_pairs ([0-9.E]+)$");
    private static final Pattern ON_HOLD = Pattern.compile("ONHOLD sent=(\\d+) received=(-?\\d+)");
    private static final Pattern RESTARTED =
        Pattern.compile("RESTARTED remote=(\\S+)->(\\S+) local=(\\S+)->(\\S+) pairs=(\\d+)->(\\d+)");
    private static final Pattern CODEC = Pattern.compile("CODEC sent=(\\S+) received=(\\S+)");
    private static final String OPUS = "audio/opus/48000/2";
    private static final String PCMU = "audio/PCMU/8000/1";
    private static final long BROWSER_MS = 90_000;

    static Path driver;
    static SiplineServer server;
    static int wsPort;
    static String base;
    static String metrics;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void installPuppeteerAndStartTheServer() throws Exception
    {
        assumeTrue(Files.isExecutable(CHROMIUM), "chromium is needed for the browser test (apt-get install chromium)");
        driver = NodeRun.install("browser", List.of("package.json", "package-lock.json", "browser-call.mjs"))
            .resolve("browser-call.mjs");
        final int httpPort = ClickToCallCompatE2eTest.freeTcpPort();
        server = SiplineServer.start("webrtc-gateway", List.of(
            "--deploy", Examples.war("webrtc-gateway").toString(),
            "--dar", Examples.root().resolve("examples/dar/webrtc-gateway.properties").toString(),
            "--ws-port", "0", "--http-port", Integer.toString(httpPort), "--admin-port",
            Integer.toString(ClickToCallCompatE2eTest.freeTcpPort()),
            "--media-ports", "34000-34999", "--media-idle", "10"));
        assertTrue(!server.output().contains("cannot deploy") && !server.output().contains("media service off"),
            server.output());
        assertTrue(server.output().lines().anyMatch(l -> l.startsWith("sipline: media on udp 127.0.0.1 ports "
            + "34000-34999 (") && l.contains("; SSRC index: vector, ")), "the relay scans with SIMD, as under "
            + "bin/sipline run:\n" + server.output());
        wsPort = Integer.parseInt(serverLine(WS).group(1));
        base = "http://127.0.0.1:" + httpPort + "/webrtc-gateway/";
        final Matcher admin = ADMIN.matcher(server.output());
        assertTrue(admin.find(), server.output());
        metrics = "http://" + admin.group(1) + "/metrics";
    }

    @AfterAll
    static void stopTheServer() throws Exception
    {
        SiplineServer.stopCleanly(server);
    }

    @Test
    void shouldCallASipPhoneFromTheBrowserWithMediaBothWaysThroughHoldResumeAndAnIceRestart() throws Exception
    {
        final int sippPort = Sipp.freeUdpPort();
        final int mediaPort = freeMediaPort();
        final String name = "webrtc-gateway-uas";
        final Process uas = SippRun.callee(name, sippPort, 1, List.of("-sf",
            Examples.scenario("callee-renegotiates.xml", Map.of()), "-rtp_echo", "-mp", Integer.toString(mediaPort)));
        try
        {
            final String sipp = "sip:echo@127.0.0.1:" + sippPort + ";transport=udp";
            final NodeRun browser = NodeRun.start(driver, List.of(page("caller", "call=" + sipp),
                Long.toString(BROWSER_MS - 10_000), "caller", "renegotiate"));
            try
            {
                // The relay's own count over the 2 s the browser measures once resumed: about 200 (50 packets/s each
                // way), read when this thread sees the browser's lines, so a busy machine may shorten the window.
                final long[] relayed = {relayedAtStats(browser, 3), relayedAtStats(browser, 4),
                    relayedAtStats(browser, 5), relayedAtStats(browser, 6)};
                assertMedia(browser, 6);
                final String why = browser.output() + "\n== server\n" + server.output();
                // sipp answers Opus (the browser offers it first): the browser leg carries Opus both ways, relayed
                // without transcoding to sipp's plain RTP leg and back
                assertCodec(browser, OPUS, why);
                assertTrue(browser.has("REOFFERED sendrecv"), "sipp's re-INVITE answered:\n" + why);
                assertTrue(browser.has("HELD sendonly"), "on hold, the browser only sends:\n" + why);
                // RFC 3264 §8.4: the holder marks the stream sendonly and goes on sending (music on hold); it is the
                // held side (sipp, recvonly) that stops, which sipp's -rtp_echo does not do (the relay passes what
                // each side sends, as it does RTCP, RFC 3264 §5.1), so only the browser's side is asserted.
                final Matcher onHold = ON_HOLD.matcher(browser.output());
                assertTrue(onHold.find() && Long.parseLong(onHold.group(1)) > 25,
                    "on hold the browser went on sending, through the relay:\n" + why);
                assertTrue(browser.has("BUNDLE local=true remote=false"), "the browser offers BUNDLE (RFC 9143), the "
                    + "gateway's answer leaves it out (§7.3.3) and the call works unbundled:\n" + why);
                assertTrue(browser.has("RESUMED sendrecv"), why);
                final List<long[]> stats = stats(browser);
                assertFlows(stats.get(2), stats.get(3), "once resumed", why);
                assertTrue(relayed[1] - relayed[0] > 50, "the relay relayed " + (relayed[1] - relayed[0])
                    + " packets in 2 s once resumed:\n" + why);
                final Matcher restart = RESTARTED.matcher(browser.output());
                assertTrue(restart.find(), why);
                assertTrue(!restart.group(3).equals(restart.group(4)), "RFC 8839 §4.4.1.1.1: pc.restartIce() made the "
                    + "browser re-offer with new credentials:\n" + why);
                assertTrue(!restart.group(1).equals(restart.group(2)) && !restart.group(2).startsWith("refused"),
                    "RFC 8445 §9: the gateway answers an ICE restart with new credentials:\n" + why);
                assertTrue(Long.parseLong(restart.group(6)) > Long.parseLong(restart.group(5)),
                    "the browser selected a pair of the new ICE generation, checked by the gateway:\n" + why);
                assertFlows(stats.get(4), stats.get(5), "after the ICE restart", why);
                assertTrue(relayed[3] - relayed[2] > 50, "the relay relayed " + (relayed[3] - relayed[2])
                    + " packets in 2 s after the ICE restart:\n" + why);
                assertTrue(browser.has("ENDED"), browser.output());
                // INVITE, sipp's re-INVITE, hold, resume, the restart's re-INVITE and the browser's BYE reached sipp
                SippRun.awaitCallee(name, uas, 1, server);
                assertAnchorsFreed();
                assertPortsFreed();
                assertTrue(server.awaitLine(l -> l.contains("ended: the caller hung up"), 5_000), server.output());
            }
            finally
            {
                stop(browser);
            }
        }
        finally
        {
            Sipp.stop(uas);
        }
    }

    @Test
    void shouldConnectASipPhoneToTheRegisteredBrowser() throws Exception
    {
        final NodeRun browser = browser(page("gina", "answer=1"), "callee");
        try
        {
            assertTrue(Sipp.await(() -> browser.has("REGISTERED") || !browser.process.isAlive(), BROWSER_MS),
                browser.output());
            assertTrue(browser.has("REGISTERED"), browser.output());
            // sipp's uac: INVITE with a plain RTP offer, 200, ACK, 10 s of call (echoing the browser's RTP), BYE
            SippRun.call("webrtc-gateway-uac", server, 1, 1, 10_000, List.of("-sn", "uac", "-s", "gina", "-rtp_echo",
                "-mp", Integer.toString(freeMediaPort()), "-d", "10000")).assertAll(1, server);
            assertMedia(browser, 2);
            // sipp's uac offers PCMU only: the gateway offers the browser what the phone offered, and no more
            assertCodec(browser, PCMU, browser.output());
            assertTrue(browser.has("BUNDLE local=false remote=false"), "neither the gateway's offer nor the browser's "
                + "answer bundles:\n" + browser.output());
            assertTrue(browser.has("ENDED"), browser.output());
            assertAnchorsFreed();
            assertPortsFreed();
            assertTrue(server.awaitLine(l -> l.contains("ended: the caller hung up"), 5_000), server.output());
        }
        finally
        {
            stop(browser);
        }
    }

    /**
     * Waits for the browser script to end and checks what it reported about the call and its media: {@code lines}
     * STATS lines, the first two 5 s apart.
     */
    private static void assertMedia(final NodeRun browser, final int lines) throws InterruptedException
    {
        final boolean ended = browser.process.waitFor(BROWSER_MS, TimeUnit.MILLISECONDS);
        final String why = browser.output() + "\n== server\n" + server.output();
        assertTrue(ended, "the browser did not finish in " + BROWSER_MS + " ms:\n" + why);
        assertEquals(0, browser.process.exitValue(), why);
        assertTrue(browser.has("ESTABLISHED"), why);
        assertTrue(browser.has("ICE connected") || browser.has("ICE completed"), why);
        assertTrue(browser.has("DTLS connected"), why);
        final List<long[]> stats = stats(browser);
        assertEquals(lines, stats.size(), why);
        final long[] first = stats.get(0);
        final long[] second = stats.get(1);
        // sipp sends no RTP of its own, it only echoes what reaches its media port: every packet the browser
        // received went browser -> relay (SRTP to RTP) -> sipp -> relay (RTP to SRTP) -> browser, so the packets
        // received in the window were also received by sipp, and both relay directions carried them.
        assertTrue(second[0] - first[0] > 100, "the browser sent " + (second[0] - first[0]) + " packets in 5 s:\n"
            + why);
        assertTrue(second[1] - first[1] > 100, "the browser received " + (second[1] - first[1])
            + " packets in 5 s (its own audio echoed by sipp through the relay):\n" + why);
        // packetsLost (RFC 3550 §6.4.1 cumulative lost, as getStats reports it) under 2 % of what arrived
        assertTrue(second[2] * 50 <= second[1], "the browser lost " + second[2] + " of " + (second[1] + second[2])
            + " packets:\n" + why);
    }

    /** The browser's getStats() names {@code codec} (mime type, clock rate, channels) for both directions. */
    private static void assertCodec(final NodeRun browser, final String codec, final String why)
    {
        final Matcher m = CODEC.matcher(browser.output());
        assertTrue(m.find(), why);
        assertEquals(codec + " " + codec, m.group(1) + " " + m.group(2), "the codec sent and received:\n" + why);
    }

    /** Over 50 packets sent and over 50 received (echoed by sipp) in a 2 s window of the browser's statistics. */
    private static void assertFlows(final long[] from, final long[] to, final String when, final String why)
    {
        assertTrue(to[0] - from[0] > 50, "the browser sent " + (to[0] - from[0]) + " packets in 2 s " + when + ":\n"
            + why);
        assertTrue(to[1] - from[1] > 50, "the browser received " + (to[1] - from[1]) + " packets in 2 s " + when
            + ":\n" + why);
    }

    /** @return packets sent, received and lost of each {@code STATS} line so far. */
    private static List<long[]> stats(final NodeRun browser)
    {
        return browser.output().lines().filter(l -> l.startsWith("STATS ")).map(STATS::matcher)
            .filter(Matcher::matches).map(WebRtcGatewayE2eTest::counts).toList();
    }

    /**
     * Waits (bounded) for the browser's {@code n}th STATS line, then reads the relay's count of relayed packets from
     * the server's {@code /metrics}.
     */
    private long relayedAtStats(final NodeRun browser, final int n) throws Exception
    {
        final boolean seen = Sipp.await(() -> stats(browser).size() >= n || !browser.process.isAlive(), BROWSER_MS);
        assertTrue(seen && stats(browser).size() >= n, "no STATS line " + n + ":\n" + browser.output()
            + "\n== server\n" + server.output());
        final String body = http.send(HttpRequest.newBuilder(URI.create(metrics)).timeout(Duration.ofSeconds(5))
            .build(), HttpResponse.BodyHandlers.ofString()).body();
        final Matcher m = RELAYED.matcher(body);
        assertTrue(m.find(), body);
        return (long)Double.parseDouble(m.group(1));
    }

    /** @return packets sent, received and lost, from a {@code STATS} line. */
    private static long[] counts(final Matcher stats)
    {
        return new long[] {Long.parseLong(stats.group(1)), Long.parseLong(stats.group(2)),
            Long.parseLong(stats.group(3))};
    }

    /** The server-wide count of media anchors, from the example's status page, reaches 0 (bounded). */
    private void assertAnchorsFreed() throws InterruptedException
    {
        final String last = awaitBody(base + "status", b -> b.contains("\"activeAnchors\":0,"));
        assertTrue(last.contains("\"activeAnchors\":0,") && last.contains("\"mediaService\":true"),
            "anchors not freed: " + last + "\n== server\n" + server.output());
    }

    /** The relay's media port pairs in use ({@code sipline_media_port_pairs} of {@code /metrics}) reach 0 (bounded). */
    private void assertPortsFreed() throws InterruptedException
    {
        final String last = awaitBody(metrics, b ->
        {
            final Matcher m = PORT_PAIRS.matcher(b);
            return m.find() && 0 == Double.parseDouble(m.group(1));
        });
        final Matcher m = PORT_PAIRS.matcher(last);
        assertTrue(m.find() && 0 == Double.parseDouble(m.group(1)), "media ports not freed:\n" + last);
    }

    /** GETs {@code uri} until its body satisfies {@code done} (bounded, 10 s); returns the last body or error. */
    private String awaitBody(final String uri, final Predicate<String> done) throws InterruptedException
    {
        final String[] last = {""};
        Sipp.await(() ->
        {
            try
            {
                last[0] = http.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            }
            catch (final IOException e)
            {
                last[0] = e.toString();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return true;
            }
            return done.test(last[0]);
        }, 10_000);
        return last[0];
    }

    private static String page(final String user, final String query)
    {
        return base + "?auto=1&user=" + user + "&ws=ws://127.0.0.1:" + wsPort + "/&" + query;
    }

    private static NodeRun browser(final String url, final String role) throws IOException
    {
        return NodeRun.start(driver, List.of(url, Long.toString(BROWSER_MS - 10_000), role));
    }

    /** Stops node and the Chromium it started (and Chromium's helpers), each by its process id. */
    private static void stop(final NodeRun browser)
    {
        final String pid = browser.line("CHROMIUM_PID ");
        final List<ProcessHandle> children = browser.process.toHandle().descendants().toList();
        browser.stop();
        children.forEach(ProcessHandle::destroyForcibly);
        if (null != pid)
        {
            ProcessHandle.of(Long.parseLong(pid.substring("CHROMIUM_PID ".length()).strip())).ifPresent(h ->
            {
                h.descendants().forEach(ProcessHandle::destroyForcibly);
                h.destroyForcibly();
            });
        }
    }

    /** An even UDP port, with the two above it, free right now on 127.0.0.1 (sipp's RTP echo binds them). */
    private static int freeMediaPort() throws IOException
    {
        for (int i = 0; i < 50; i++)
        {
            final int port = Sipp.freeUdpPort() & ~1;
            if (port > 1024 && port < 65530 && udpFree(port) && udpFree(port + 1) && udpFree(port + 2))
            {
                return port;
            }
        }
        throw new IOException("no free even UDP port pair found on 127.0.0.1");
    }

    private static boolean udpFree(final int port)
    {
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), port)))
        {
            return probe.getLocalPort() == port;
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    private static Matcher serverLine(final Pattern pattern)
    {
        for (final String line : server.output().split("\n"))
        {
            final Matcher m = pattern.matcher(line);
            if (m.matches())
            {
                return m;
            }
        }
        throw new AssertionError("no line matching " + pattern + " in:\n" + server.output());
    }
}
