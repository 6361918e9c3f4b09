package io.sipline.media.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our endpoint against OpenSSL's {@code s_server} and {@code s_client} over loopback UDP, in both roles: DTLS 1.2
 * with {@code use_srtp} SRTP_AES128_CM_SHA1_80 (RFC 5764 §4.1.2), both certificates checked against their
 * fingerprints (RFC 5763 §5), and the 60 octets of {@code EXTRACTOR-dtls_srtp} (RFC 5764 §4.2) equal to what
 * OpenSSL prints. Skipped only when {@code openssl} is absent.
 */
@Timeout(60)
class DtlsOpensslInteropTest
{
    private static final DtlsCertificate OURS = DtlsCertificate.generate(new SecureRandom());
    private static final long WAIT_SECONDS = 20;
    private static final Pattern KEYING_MATERIAL = Pattern.compile("Keying material: ([0-9A-F]+)");

    @TempDir
    Path dir;

    private final LinkedBlockingQueue<String> output = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private final DtlsEndpointTest.Events events = new DtlsEndpointTest.Events();
    private Process openssl;
    private DatagramChannel channel;
    private DtlsEndpoint endpoint;
    private volatile SocketAddress peer;
    private DtlsFingerprint opensslFingerprint;

    @BeforeEach
    void makeOpensslCertificate() throws Exception
    {
        Assumptions.assumeTrue(run("openssl", "version"), "openssl is not installed");
        final boolean made = run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", dir.resolve("key.pem").toString(), "-out",
            dir.resolve("cert.pem").toString(), "-subj", "/CN=openssl", "-days", "1");
        assertTrue(made, "openssl req failed");
        final String pem = Files.readString(dir.resolve("cert.pem"));
        final String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        opensslFingerprint = DtlsFingerprint.of("sha-256", Base64.getDecoder().decode(base64));
        channel = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void stop() throws Exception
    {
        if (null != endpoint)
        {
            endpoint.close();
        }
        if (null != openssl)
        {
            // Stopped by its own handle (its pid), never by name.
            openssl.destroy();
            if (!openssl.waitFor(5, TimeUnit.SECONDS))
            {
                openssl.destroyForcibly();
                openssl.waitFor(5, TimeUnit.SECONDS);
            }
        }
        if (null != channel)
        {
            channel.close();
        }
    }

    @Test
    void shouldHandshakeAsClientWithOpensslServerAndExportTheSameKeys() throws Exception
    {
        startOpenssl("s_server", "-accept", "127.0.0.1:0", "-verify", "1");
        final Matcher accept = awaitLine(Pattern.compile("ACCEPT 127\\.0\\.0\\.1:(\\d+)"));
        peer = new InetSocketAddress("127.0.0.1", Integer.parseInt(accept.group(1)));
        endpoint = DtlsEndpoint.start(DtlsRole.CLIENT, OURS, opensslFingerprint, DtlsEndpointConfig.defaults(),
            this::send, events);
        pump();
        assertSameKeys();
    }

    @Test
    void shouldHandshakeAsServerWithOpensslClientAndExportTheSameKeys() throws Exception
    {
        endpoint = DtlsEndpoint.start(DtlsRole.SERVER, OURS, opensslFingerprint, DtlsEndpointConfig.defaults(),
            this::send, events);
        pump();
        final int port = ((InetSocketAddress)channel.getLocalAddress()).getPort();
        startOpenssl("s_client", "-connect", "127.0.0.1:" + port);
        assertSameKeys();
    }

    private void assertSameKeys() throws Exception
    {
        final DtlsSrtpKeys keys = events.connected.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_80, keys.profile());
        final Matcher exported = awaitLine(KEYING_MATERIAL);
        assertEquals(exported.group(1), HexFormat.of().withUpperCase().formatHex(keys.keyingMaterial()));
        assertEquals(60, keys.keyingMaterial().length);
        final List<String> negotiated = new ArrayList<>(seen);
        assertTrue(negotiated.stream().anyMatch(line ->
            line.contains("SRTP Extension negotiated, profile=SRTP_AES128_CM_SHA1_80")), String.join("\n", seen));
    }

    private void send(final byte[] datagram, final int offset, final int length)
    {
        final SocketAddress to = peer;
        if (null == to)
        {
            return;
        }
        try
        {
            channel.send(ByteBuffer.wrap(datagram, offset, length), to);
        }
        catch (final IOException e)
        {
            // Lost, as on a network; the handshake resends.
        }
    }

    /** The media thread of the test: reads the socket, latches the peer, hands DTLS datagrams in (RFC 7983). */
    private void pump()
    {
        Thread.ofVirtual().name("dtls-test-pump").start(() ->
        {
            final ByteBuffer buffer = ByteBuffer.allocate(65_536);
            try
            {
                while (channel.isOpen())
                {
                    buffer.clear();
                    peer = channel.receive(buffer);
                    final int first = buffer.get(0) & 0xFF;
                    if (first >= 20 && first <= 63)
                    {
                        endpoint.onDatagram(buffer.array(), 0, buffer.position());
                    }
                }
            }
            catch (final IOException e)
            {
                // Channel closed at the end of the test.
            }
        });
    }

    private void startOpenssl(final String command, final String... args) throws IOException
    {
        final List<String> line = new ArrayList<>(List.of("openssl", command, "-dtls1_2", "-cert",
            dir.resolve("cert.pem").toString(), "-key", dir.resolve("key.pem").toString(), "-use_srtp",
            "SRTP_AES128_CM_SHA1_80", "-keymatexport", "EXTRACTOR-dtls_srtp", "-keymatexportlen", "60"));
        line.addAll(List.of(args));
        // Standard input stays an open pipe: both tools end their connection at its end of file.
        openssl = new ProcessBuilder(line).redirectErrorStream(true).start();
        Thread.ofVirtual().name("openssl-output").start(() ->
        {
            try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(openssl.getInputStream(), StandardCharsets.UTF_8)))
            {
                String text;
                while (null != (text = reader.readLine()))
                {
                    output.add(text);
                }
            }
            catch (final IOException e)
            {
                // Process gone.
            }
        });
    }

    private Matcher awaitLine(final Pattern pattern) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (System.nanoTime() < deadlineNs)
        {
            final String line = output.poll(100, TimeUnit.MILLISECONDS);
            if (null != line)
            {
                seen.add(line);
                final Matcher matcher = pattern.matcher(line);
                if (matcher.find())
                {
                    return matcher;
                }
            }
        }
        fail("openssl never printed " + pattern + "; it printed:\n" + String.join("\n", seen) +
            "\nendpoint failure: " + (events.failed.isDone() ? events.detail : "none"));
        return null;
    }

    private static boolean run(final String... command) throws InterruptedException
    {
        final Process process;
        try
        {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        }
        catch (final IOException e)
        {
            return false;
        }
        if (!process.waitFor(20, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            return false;
        }
        return 0 == process.exitValue();
    }
}
