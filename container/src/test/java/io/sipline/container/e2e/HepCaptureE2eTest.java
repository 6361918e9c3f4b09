package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sipline.test.HepPacket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HEP capture in the real server ({@code --hep}): a UDP socket bound to port 0 plays the Homer collector, and a call
 * goes through the b2bua example between a caller and a callee played by the test (raw UDP sockets that record every
 * datagram they send and read: the wire, as seen from both ends). Every capture is decoded and the set of captures
 * must equal the set of datagrams on the wire: as many, each with its direction, addresses, ports and bytes, each
 * timed within the call; {@code /metrics} counts them as sent. When {@code tshark} knows HEP, it must also decode every
 * capture (written into a pcap file) as SIP; Debian 12's tshark 4.0 has no HEP dissector, and that part is skipped.
 */
class HepCaptureE2eTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final Pattern ADMIN = Pattern.compile("sipline: admin on http://([^ ]+) ");

    @TempDir
    static Path work;

    @Test
    void shouldCaptureEveryMessageOfACallAsItWasOnTheWire() throws Exception
    {
        try (DatagramSocket collector = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            DatagramSocket caller = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            DatagramSocket callee = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            final Path war = Examples.configured("b2bua",
                Map.of("target", "sip:service@127.0.0.1:" + callee.getLocalPort()), work.resolve("apps"));
            final SiplineServer server = SiplineServer.start("hep", List.of("--deploy", war.toString(), "--hep",
                "127.0.0.1:" + collector.getLocalPort(), "--hep-id", "2001", "--admin-port",
                Integer.toString(freeTcpPort())));
            try
            {
                assertTrue(server.output().contains("sipline: HEP capture to udp 127.0.0.1:" + collector.getLocalPort()
                    + " (capture id 2001)"), server.output());
                final InetSocketAddress sipline = new InetSocketAddress(LOOPBACK, server.port());
                final Wire wire = new Wire();
                final long startNanos = System.currentTimeMillis() * 1_000_000L;
                call(wire, sipline, caller, callee);
                final List<HepPacket> captures = collect(collector, wire, caller, callee);
                final long endNanos = System.currentTimeMillis() * 1_000_000L;
                assertEquals(wire.describe(), describe(captures), "the captures are the wire's datagrams");
                for (final HepPacket p : captures)
                {
                    assertEquals(17, p.protocol());
                    assertEquals(1, p.protocolType());
                    assertEquals(2001L, p.captureId());
                    assertTrue(p.nanos() >= startNanos - 1_000_000L && p.nanos() <= endNanos + 1_000_000L,
                        "captured at " + p.nanos() + ", the call ran from " + startNanos + " to " + endNanos);
                }
                final String metrics = metrics(server);
                assertEquals(captures.size(), metric(metrics, "sipline_hep_captures_total{outcome=\"sent\"}"), metrics);
                assertEquals(0, metric(metrics, "sipline_hep_captures_total{outcome=\"dropped\"}"), metrics);
                tsharkDecodesAsSip(captures, collector.getLocalPort());
            }
            finally
            {
                SiplineServer.stopCleanly(server);
            }
        }
    }

    /** INVITE, 200, ACK, BYE from the caller, 200 from the callee: through the b2bua, both legs on the wire. */
    private static void call(final Wire wire, final InetSocketAddress sipline, final DatagramSocket caller,
        final DatagramSocket callee) throws IOException
    {
        final String callId = "hep-e2e-" + System.nanoTime();
        final int port = caller.getLocalPort();
        wire.send(caller, sipline, request("INVITE", callId, port, "<sip:service@127.0.0.1>", 1)
            .replace("Content-Length", "Contact: <sip:alice@127.0.0.1:" + port + ">\r\nContent-Length"));
        final String invite = wire.await(callee, m -> m.startsWith("INVITE "), "the INVITE on the callee leg");
        wire.send(callee, sipline, answer(invite, callee.getLocalPort()));
        final String ok = wire.await(caller, m -> m.startsWith("SIP/2.0 200 ") && m.contains(" INVITE\r\n"),
            "the 200 relayed to the caller");
        final String to = header(ok, "To");
        wire.send(caller, sipline, request("ACK", callId, port, to, 1));
        wire.await(callee, m -> m.startsWith("ACK "), "the ACK on the callee leg");
        wire.send(caller, sipline, request("BYE", callId, port, to, 2));
        final String bye = wire.await(callee, m -> m.startsWith("BYE "), "the BYE on the callee leg");
        wire.send(callee, sipline, okTo(bye));
        wire.await(caller, m -> m.startsWith("SIP/2.0 200 ") && m.contains(" BYE\r\n"), "200 to the caller's BYE");
    }

    /**
     * The captures, once there are as many as datagrams on the wire and neither has grown for half a second (a
     * retransmission may still come on either); the UAs' sockets are read meanwhile. Bounded by 10 s.
     */
    private static List<HepPacket> collect(final DatagramSocket collector, final Wire wire,
        final DatagramSocket caller, final DatagramSocket callee) throws IOException
    {
        final List<HepPacket> captures = new ArrayList<>();
        final DatagramPacket packet = new DatagramPacket(new byte[65_536], 65_536);
        collector.setSoTimeout(50);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long quietSince = System.nanoTime();
        while (System.nanoTime() - deadline < 0)
        {
            boolean news = wire.poll(caller) | wire.poll(callee);
            try
            {
                collector.receive(packet);
                captures.add(HepPacket.decode(packet.getData(), packet.getLength()));
                news = true;
            }
            catch (final SocketTimeoutException e)
            {
                // nothing this time
            }
            if (news)
            {
                quietSince = System.nanoTime();
            }
            else if (captures.size() == wire.size() && System.nanoTime() - quietSince > 500_000_000L)
            {
                break;
            }
        }
        return captures;
    }

    private static String describe(final List<HepPacket> captures)
    {
        final List<String> lines = new ArrayList<>();
        for (final HepPacket p : captures)
        {
            lines.add(Wire.line(p.source(), p.destination(), p.payload()));
        }
        lines.sort(null);
        return String.join("\n", lines);
    }

    private static int freeTcpPort() throws IOException
    {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, LOOPBACK))
        {
            return probe.getLocalPort();
        }
    }

    /** The value of the sample {@code name{labels}} in a Prometheus text exposition. */
    private static double metric(final String exposition, final String sample)
    {
        for (final String line : exposition.split("\n"))
        {
            if (line.startsWith(sample + " "))
            {
                return Double.parseDouble(line.substring(sample.length() + 1).strip());
            }
        }
        throw new AssertionError(sample + " missing");
    }

    private static String metrics(final SiplineServer server) throws Exception
    {
        final Matcher admin = ADMIN.matcher(server.output());
        assertTrue(admin.find(), server.output());
        final HttpResponse<String> response = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create("http://" + admin.group(1) + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        return response.body();
    }

    /**
     * When tshark knows HEP: the captures, wrapped in IPv4/UDP headers to the collector's port in a pcap file, must
     * each decode as SIP with {@code -d udp.port==PORT,hep}.
     */
    private static void tsharkDecodesAsSip(final List<HepPacket> captures, final int collectorPort) throws Exception
    {
        if (!tsharkKnowsHep())
        {
            // the captures were decoded and compared above; tshark is a second decoder where it has HEP
            System.out.println("tshark with a HEP dissector is not installed: pcap check not run");
            return;
        }
        final Path pcap = work.resolve("hep.pcap");
        writePcap(pcap, captures, collectorPort);
        final Process tshark = new ProcessBuilder("tshark", "-n", "-r", pcap.toString(), "-d",
            "udp.port==" + collectorPort + ",hep", "-Y", "sip", "-T", "fields", "-e", "sip.Call-ID")
            .redirectErrorStream(false).start();
        final String out;
        try
        {
            out = new String(tshark.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(tshark.waitFor(30, TimeUnit.SECONDS), "tshark ended");
        }
        finally
        {
            tshark.destroyForcibly();
        }
        assertEquals(captures.size(), out.lines().filter(l -> l.startsWith("hep-e2e-")).count(), out);
    }

    private static boolean tsharkKnowsHep() throws InterruptedException
    {
        try
        {
            final Process p = new ProcessBuilder("tshark", "-G", "protocols").redirectErrorStream(false).start();
            try
            {
                final String list = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                p.waitFor(30, TimeUnit.SECONDS);
                return list.lines().anyMatch(l -> l.endsWith("\thep"));
            }
            finally
            {
                p.destroyForcibly();
            }
        }
        catch (final IOException e)
        {
            return false; // no tshark
        }
    }

    /** A pcap (LINKTYPE_RAW, 101) of each capture in an IPv4/UDP datagram from 127.0.0.1:9 to the collector. */
    private static void writePcap(final Path file, final List<HepPacket> captures, final int port) throws IOException
    {
        try (OutputStream out = Files.newOutputStream(file))
        {
            final ByteBuffer header = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            header.putInt(0xa1b2c3d4).putShort((short)2).putShort((short)4).putInt(0).putInt(0).putInt(65_535)
                .putInt(101);
            out.write(header.array());
            for (final HepPacket p : captures)
            {
                final byte[] hep = p.encoded();
                final int length = 20 + 8 + hep.length;
                final ByteBuffer record = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
                record.putInt((int)p.seconds()).putInt((int)p.micros()).putInt(length).putInt(length);
                out.write(record.array());
                final ByteBuffer ip = ByteBuffer.allocate(28);
                ip.put((byte)0x45).put((byte)0).putShort((short)length).putInt(0).put((byte)64).put((byte)17)
                    .putShort((short)0).put(LOOPBACK.getAddress()).put(LOOPBACK.getAddress());
                ip.putShort(10, checksum(ip.array()));
                ip.putShort((short)9).putShort((short)port).putShort((short)(8 + hep.length)).putShort((short)0);
                out.write(ip.array());
                out.write(hep);
            }
        }
    }

    private static short checksum(final byte[] ipHeader)
    {
        int sum = 0;
        for (int i = 0; i < 20; i += 2)
        {
            sum += (ipHeader[i] & 0xFF) << 8 | (ipHeader[i + 1] & 0xFF);
        }
        while (sum >> 16 != 0)
        {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        return (short)~sum;
    }

    private static String request(final String method, final String callId, final int port, final String to,
        final int cseq)
    {
        return method + " sip:service@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bK-" + callId + "-" + method + cseq + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@127.0.0.1>;tag=a1\r\n"
            + "To: " + to + "\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: " + cseq + " " + method + "\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    private static String answer(final String invite, final int port)
    {
        return "SIP/2.0 200 OK\r\n"
            + "Via: " + header(invite, "Via") + "\r\n"
            + "From: " + header(invite, "From") + "\r\n"
            + "To: " + header(invite, "To") + ";tag=b1\r\n"
            + "Call-ID: " + header(invite, "Call-ID") + "\r\n"
            + "CSeq: " + header(invite, "CSeq") + "\r\n"
            + "Contact: <sip:bob@127.0.0.1:" + port + ">\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    private static String okTo(final String request)
    {
        return "SIP/2.0 200 OK\r\n"
            + "Via: " + header(request, "Via") + "\r\n"
            + "From: " + header(request, "From") + "\r\n"
            + "To: " + header(request, "To") + "\r\n"
            + "Call-ID: " + header(request, "Call-ID") + "\r\n"
            + "CSeq: " + header(request, "CSeq") + "\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    private static String header(final String message, final String name)
    {
        final String prefix = name.toLowerCase(Locale.ROOT) + ":";
        for (final String line : message.split("\r\n"))
        {
            if (line.toLowerCase(Locale.ROOT).startsWith(prefix))
            {
                return line.substring(prefix.length()).strip();
            }
        }
        return null;
    }

    /** Every datagram the test's UAs sent and read, in order. Test thread only. */
    private static final class Wire
    {
        private final List<String> lines = new ArrayList<>();
        private final byte[] buffer = new byte[65_536];

        static String line(final InetSocketAddress from, final InetSocketAddress to, final byte[] bytes)
        {
            return from.getAddress().getHostAddress() + ":" + from.getPort() + " -> " + to.getAddress()
                .getHostAddress() + ":" + to.getPort() + " " + Arrays.hashCode(bytes) + " "
                + new String(bytes, StandardCharsets.US_ASCII).replace("\r\n", "|");
        }

        int size()
        {
            return lines.size();
        }

        String describe()
        {
            final List<String> sorted = new ArrayList<>(lines);
            sorted.sort(null);
            return String.join("\n", sorted);
        }

        void send(final DatagramSocket socket, final InetSocketAddress to, final String text) throws IOException
        {
            final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
            socket.send(new DatagramPacket(bytes, bytes.length, to));
            lines.add(line((InetSocketAddress)socket.getLocalSocketAddress(), to, bytes));
        }

        /** Reads one datagram if one comes within 20 ms; true when one did (recorded). */
        boolean poll(final DatagramSocket socket) throws IOException
        {
            return null != read(socket, 20);
        }

        /** The first datagram read that matches, within ten seconds; every datagram read is recorded. */
        String await(final DatagramSocket socket, final Predicate<String> wanted, final String what)
            throws IOException
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() - deadline < 0)
            {
                final String text = read(socket, 100);
                if (null != text && wanted.test(text))
                {
                    return text;
                }
            }
            throw new AssertionError("no " + what + " within 10 s; wire so far:\n" + describe());
        }

        private String read(final DatagramSocket socket, final int timeoutMs) throws IOException
        {
            socket.setSoTimeout(timeoutMs);
            final DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            try
            {
                socket.receive(p);
            }
            catch (final SocketTimeoutException e)
            {
                return null;
            }
            final byte[] bytes = Arrays.copyOf(buffer, p.getLength());
            lines.add(line((InetSocketAddress)p.getSocketAddress(), (InetSocketAddress)socket.getLocalSocketAddress(),
                bytes));
            return new String(bytes, StandardCharsets.US_ASCII);
        }
    }
}
