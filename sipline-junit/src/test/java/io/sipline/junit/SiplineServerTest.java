package io.sipline.junit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server the extension starts and stops, used directly. */
class SiplineServerTest
{
    @Test
    void closeUndeploysAndReleasesThePort()
    {
        final SiplineServer server = SiplineServer.start(1, null);
        final InetSocketAddress address = server.address();
        server.deployment(Path.of("target/test-classes"), Path.of("src/test/webapp/uas")).deploy();
        try (UserAgent alice = UserAgent.open("alice"))
        {
            alice.send(alice.createRequest("OPTIONS", server.uri("uas"))).expect(200);
        }
        server.close();
        assertTrue(server.applications().isEmpty());
        assertDoesNotThrow(() ->
        {
            try (DatagramSocket again = new DatagramSocket(address))
            {
                assertEquals(address.getPort(), again.getLocalPort());
            }
        }, "the container's port is free once it is closed");
    }

    @Test
    void refusesAMalformedDar(@TempDir final Path dir) throws Exception
    {
        final Path dar = Files.writeString(dir.resolve("dar.properties"), "INVITE: (\"app\", \"DAR:From\"\n");
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> SiplineServer.start(1, dar));
        assertTrue(e.getMessage().contains("dar.properties"), e.getMessage());
        assertFalse(e.getMessage().isBlank());
    }
}
