package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import io.sipline.sip.transport.tcp.WsSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SIP-over-WebSocket flags: what they become in {@link RunOptions#webSocket()}, and what is refused. */
class CliWebSocketTest extends CliCase
{
    @Test
    void shouldHaveNoWebSocketByDefault()
    {
        assertEquals(Cli.SERVING, run("run"));
        assertNull(started.webSocket());
    }

    @Test
    void shouldTakeThePortPathOriginsAndLimits()
    {
        assertEquals(Cli.SERVING, run("run", "--ws-port", "8080", "--ws-path", "/sip", "--ws-origin",
            "https://a.example.com,https://b.example.com", "--ws-max-connections", "5000", "--ws-max-per-address", "20",
            "--ws-max-message", "32768"));
        final RunOptions.WebSocket ws = started.webSocket();
        assertEquals(8080, ws.wsPort());
        assertNull(ws.wssPort());
        final WsSettings s = ws.settings();
        assertEquals("/sip", s.path());
        assertEquals(Set.of("https://a.example.com", "https://b.example.com"), s.origins());
        assertEquals(5000, s.maxConnections());
        assertEquals(20, s.maxPerAddress());
        assertEquals(32768, s.maxMessageBytes());
        assertEquals(32768, s.maxFrameBytes());
    }

    @Test
    void shouldAcceptPortZeroForAFreePort()
    {
        assertEquals(Cli.SERVING, run("run", "--ws-port", "0"));
        assertEquals(0, started.webSocket().wsPort());
        assertNull(started.webSocket().settings().origins(), "any origin by default");
        assertNull(started.webSocket().settings().path(), "any path by default");
    }

    @Test
    void shouldRefuseWssWithoutACertificate()
    {
        assertEquals(2, run("run", "--wss-port", "8443"));
        assertTrue(errorLine().contains("--wss-port needs --tls-cert and --tls-key"), err.toString());
    }

    @Test
    void shouldTakeWssWithTheTlsPair(@TempDir final Path dir) throws IOException
    {
        final Path cert = Files.writeString(dir.resolve("cert.pem"), "-----BEGIN CERTIFICATE-----\n");
        final Path key = Files.writeString(dir.resolve("key.pem"), "-----BEGIN PRIVATE KEY-----\n");
        assertEquals(Cli.SERVING, run("run", "--wss-port", "8443", "--tls-cert", cert.toString(), "--tls-key",
            key.toString()));
        assertEquals(8443, started.webSocket().wssPort());
    }

    @Test
    void shouldRefuseTheSipPortAPathWithoutSlashAndPathWithoutPort()
    {
        assertEquals(2, run("run", "--port", "5060", "--ws-port", "5060"));
        assertTrue(errorLine().contains("5060 is already a UDP/TCP port"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, run("run", "--ws-port", "8080", "--ws-path", "sip"));
        assertTrue(errorLine().contains("--ws-path"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, run("run", "--ws-origin", "https://a.example.com"));
        assertTrue(errorLine().contains("need --ws-port or --wss-port"), err.toString());
    }

    @Test
    void shouldRefuseATinyMaximumMessage()
    {
        assertEquals(2, run("run", "--ws-port", "8080", "--ws-max-message", "100"));
        assertTrue(errorLine().contains("--ws-max-message"), err.toString());
    }
}
