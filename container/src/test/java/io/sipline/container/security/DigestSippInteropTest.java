package io.sipline.container.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.sipline.container.security.AuthResult.Outcome;
import io.sipline.test.Sipp;

/**
 * Interoperability with sipp's {@code [authentication]} (sipp computes MD5 digests with qop=auth): a minimal UDP
 * registrar on loopback challenges each REGISTER with {@link DigestAuthenticator} and accepts the retry. Responses
 * are cached per (Call-ID, CSeq) so a retransmission gets the same answer, as a transaction layer would do.
 */
class DigestSippInteropTest
{
    /** A UAC registering through a digest challenge: REGISTER, 401, REGISTER with sipp's [authentication], 200. */
    private static final String SCENARIO = """
        <?xml version="1.0" encoding="ISO-8859-1" ?>
        <scenario name="register with digest authentication">
        """ + register(1, "User-Agent: sipp") + """
          <recv response="401" auth="true"/>
        """ + register(2, "[authentication username=alice password=s3cret]") + """
          <recv response="200"/>
        </scenario>
        """;

    private static String register(final int cseq, final String line)
    {
        return """
              <send retrans="500">
                <![CDATA[

                  REGISTER sip:[remote_ip]:[remote_port] SIP/2.0
                  Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
                  From: <sip:alice@[remote_ip]>;tag=[call_number]
                  To: <sip:alice@[remote_ip]>
                  Call-ID: [call_id]
                  CSeq: %d REGISTER
                  Contact: <sip:alice@[local_ip]:[local_port]>
                  %s
                  Max-Forwards: 70
                  Expires: 60
                  Content-Length: 0

                ]]>
              </send>
            """.formatted(cseq, line);
    }

    @Test
    void shouldAuthenticateSippWithMd5Challenges() throws Exception
    {
        assumeTrue(Sipp.available(), "sipp not installed");
        final Outcomes outcomes = run("digest-md5", List.of(DigestAlgorithm.MD5));
        assertArrayEquals(new long[] {5, 0}, outcomes.sipp, outcomes.report);
        assertEquals(5, outcomes.ok.get(), outcomes.report);
    }

    /**
     * sipp 3.6.1 answers only the first challenge and only with MD5: with the default order (SHA-256 first, RFC 8760
     * §2.4) it stops with "createAuthHeader: authentication must use MD5 or AKAv1-MD5". Offering MD5 first, then
     * SHA-256, serves such clients and still lets RFC 8760 clients pick SHA-256.
     */
    @Test
    void shouldAuthenticateSippWhenMd5IsOfferedFirst() throws Exception
    {
        assumeTrue(Sipp.available(), "sipp not installed");
        final Outcomes outcomes = run("digest-md5-first", List.of(DigestAlgorithm.MD5, DigestAlgorithm.SHA_256));
        assertArrayEquals(new long[] {5, 0}, outcomes.sipp, outcomes.report);
        assertEquals(5, outcomes.ok.get(), outcomes.report);
    }

    private record Outcomes(long[] sipp, AtomicInteger ok, String report)
    {
    }

    private static Outcomes run(final String name, final List<DigestAlgorithm> algorithms) throws Exception
    {
        final UserRealm users = DigestAuthenticatorTest.users("alice:plain:s3cret:subscriber\n");
        final DigestAuthenticator server = new DigestAuthenticator("sip.example.com", users,
            DigestAuthenticator.Settings.DEFAULTS.withAlgorithms(algorithms), System::currentTimeMillis,
            new SecureRandom());
        final AtomicInteger ok = new AtomicInteger();
        final List<String> failures = new ArrayList<>();
        final Path scenario = Files.createDirectories(Path.of("target", "sipp")).resolve("register-digest.xml");
        Files.writeString(scenario, SCENARIO);
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0)))
        {
            socket.setSoTimeout(100);
            final Process sipp = Sipp.start(name, List.of("-sf", scenario.toAbsolutePath().toString(),
                "-m", "5", "-r", "10", "127.0.0.1:" + socket.getLocalPort()));
            try
            {
                final Map<String, byte[]> answered = new HashMap<>();
                final byte[] buffer = new byte[65_536];
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (sipp.isAlive() && System.nanoTime() - deadline < 0)
                {
                    final DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
                    try
                    {
                        socket.receive(packet);
                    }
                    catch (final SocketTimeoutException ex)
                    {
                        continue;
                    }
                    final String text = new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8);
                    final Request request = Request.parse(text);
                    final String key = request.header("call-id") + "/" + request.header("cseq");
                    byte[] response = answered.get(key);
                    if (null == response)
                    {
                        final AuthResult result = server.authenticate(request.method, request.uri,
                            request.headers("authorization"));
                        if (Outcome.OK == result.outcome())
                        {
                            ok.incrementAndGet();
                            response = request.respond("200 OK", List.of());
                        }
                        else
                        {
                            if (Outcome.MISSING != result.outcome())
                            {
                                failures.add(result.outcome() + ": " + result.reason());
                            }
                            final List<String> challenge = new ArrayList<>();
                            for (final String value : server.challenges(Outcome.STALE == result.outcome()))
                            {
                                challenge.add("WWW-Authenticate: " + value);
                            }
                            response = request.respond("401 Unauthorized", challenge);
                        }
                        answered.put(key, response);
                    }
                    socket.send(new DatagramPacket(response, response.length, packet.getSocketAddress()));
                }
                sipp.waitFor(10, TimeUnit.SECONDS);
            }
            finally
            {
                Sipp.stop(sipp);
            }
        }
        return new Outcomes(Sipp.successAndFailed(name), ok, "server: " + failures + "\n" + Sipp.report(name));
    }

    /** The parts of a received request this registrar needs. */
    private record Request(String method, String uri, List<String[]> headerLines)
    {
        static Request parse(final String text) throws IOException
        {
            final String[] lines = text.split("\r\n");
            final String[] start = lines[0].split(" ");
            if (3 != start.length)
            {
                throw new IOException("not a request: " + lines[0]);
            }
            final List<String[]> headers = new ArrayList<>();
            for (int i = 1; i < lines.length && !lines[i].isEmpty(); i++)
            {
                final int colon = lines[i].indexOf(':');
                headers.add(new String[] {lines[i].substring(0, colon).strip(), lines[i].substring(colon + 1).strip()});
            }
            return new Request(start[0], start[1], headers);
        }

        List<String> headers(final String name)
        {
            final List<String> values = new ArrayList<>();
            for (final String[] header : headerLines)
            {
                if (header[0].toLowerCase(Locale.ROOT).equals(name))
                {
                    values.add(header[1]);
                }
            }
            return values;
        }

        String header(final String name)
        {
            final List<String> values = headers(name);
            return values.isEmpty() ? "" : values.getFirst();
        }

        byte[] respond(final String status, final List<String> extra)
        {
            final StringBuilder response = new StringBuilder("SIP/2.0 ").append(status).append("\r\n");
            for (final String[] header : headerLines)
            {
                final String lower = header[0].toLowerCase(Locale.ROOT);
                if (lower.equals("via") || lower.equals("from") || lower.equals("call-id") || lower.equals("cseq"))
                {
                    response.append(header[0]).append(": ").append(header[1]).append("\r\n");
                }
                else if (lower.equals("to"))
                {
                    response.append(header[0]).append(": ").append(header[1]).append(";tag=registrar\r\n");
                }
            }
            for (final String line : extra)
            {
                response.append(line).append("\r\n");
            }
            return response.append("Content-Length: 0\r\n\r\n").toString().getBytes(StandardCharsets.UTF_8);
        }
    }
}
