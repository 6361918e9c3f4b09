package io.sipline.media.dtls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.sipline.media.srtp.SrtpSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two of our endpoints over in-memory pipes that lose chosen datagrams: the handshake of RFC 6347 §4.2.4 must
 * complete by retransmission, within a 1,200-octet path MTU, and every failure must reach the listener.
 */
class DtlsEndpointTest
{
    private static final DtlsCertificate CLIENT_CERTIFICATE = DtlsCertificate.generate(new SecureRandom());
    private static final DtlsCertificate SERVER_CERTIFICATE = DtlsCertificate.generate(new SecureRandom());
    private static final DtlsFingerprint STRANGER = DtlsCertificate.generate(new SecureRandom()).fingerprint();
    private static final long WAIT_SECONDS = 20;

    private final DtlsPipe toServer = new DtlsPipe();
    private final DtlsPipe toClient = new DtlsPipe();
    private final Events clientEvents = new Events();
    private final Events serverEvents = new Events();
    private DtlsEndpoint client;
    private DtlsEndpoint server;

    @AfterEach
    void closeEndpoints()
    {
        if (null != client)
        {
            client.close();
        }
        if (null != server)
        {
            server.close();
        }
    }

    private static DtlsEndpointConfig.Builder fastResend()
    {
        return DtlsEndpointConfig.builder().initialResendMs(50);
    }

    private void start(final DtlsEndpointConfig clientConfig, final DtlsEndpointConfig serverConfig,
        final DtlsFingerprint serverExpects, final DtlsFingerprint clientExpects)
    {
        server = DtlsEndpoint.start(DtlsRole.SERVER, SERVER_CERTIFICATE, serverExpects, serverConfig, toClient,
            serverEvents);
        client = DtlsEndpoint.start(DtlsRole.CLIENT, CLIENT_CERTIFICATE, clientExpects, clientConfig, toServer,
            clientEvents);
        toServer.connect(server);
        toClient.connect(client);
    }

    private void start(final DtlsEndpointConfig config)
    {
        start(config, config, CLIENT_CERTIFICATE.fingerprint(), SERVER_CERTIFICATE.fingerprint());
    }

    private void assertConnectedWithMirroredKeys(final int maxDatagramBytes) throws Exception
    {
        final DtlsSrtpKeys clientKeys = clientEvents.connected.get(WAIT_SECONDS, TimeUnit.SECONDS);
        final DtlsSrtpKeys serverKeys = serverEvents.connected.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(DtlsEndpoint.State.CONNECTED, client.state());
        assertEquals(DtlsEndpoint.State.CONNECTED, server.state());
        assertEquals(DtlsRole.CLIENT, clientKeys.role());
        assertEquals(DtlsRole.SERVER, serverKeys.role());
        // RFC 5764 §4.2: both sides export the same material; each sends with its own role's half.
        assertArrayEquals(clientKeys.keyingMaterial(), serverKeys.keyingMaterial());
        assertArrayEquals(clientKeys.outboundPolicy().masterKey(), serverKeys.inboundPolicy().masterKey());
        assertArrayEquals(serverKeys.outboundPolicy().masterSalt(), clientKeys.inboundPolicy().masterSalt());
        assertEquals(SERVER_CERTIFICATE.fingerprint(), clientKeys.peerFingerprint());
        try (SrtpSession clientSession = clientKeys.newSession(); SrtpSession serverSession = serverKeys.newSession())
        {
            assertSrtpFlows(clientSession, serverSession);
            assertSrtpFlows(serverSession, clientSession);
        }
        assertTrue(toServer.largestSent() <= maxDatagramBytes, "client sent " + toServer.largestSent());
        assertTrue(toClient.largestSent() <= maxDatagramBytes, "server sent " + toClient.largestSent());
        assertTrue(client.largestSentDatagram() <= maxDatagramBytes);
        assertTrue(server.largestSentDatagram() <= maxDatagramBytes);
        assertEquals(0, client.malformedDatagrams() + server.malformedDatagrams());
    }

    static void assertSrtpFlows(final SrtpSession sender, final SrtpSession receiver)
    {
        final byte[] packet = new byte[12 + 160 + 16];
        packet[0] = (byte)0x80;
        packet[3] = 7;
        packet[11] = 0x42;
        for (int i = 12; i < 172; i++)
        {
            packet[i] = (byte)i;
        }
        final byte[] plain = java.util.Arrays.copyOf(packet, 172);
        final int protectedLength = sender.protectRtp(packet, 0, 172);
        assertTrue(protectedLength > 172, "protect returned " + protectedLength);
        assertEquals(172, receiver.unprotectRtp(packet, 0, protectedLength));
        assertArrayEquals(plain, java.util.Arrays.copyOf(packet, 172));
    }

    @Test
    void shouldHandshakeAndAgreeOnSrtpKeysWithinA1200OctetMtu() throws Exception
    {
        start(fastResend().build());
        assertConnectedWithMirroredKeys(1200);
        assertEquals(DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_80, clientEvents.connected.get().profile());
        assertEquals(0, toServer.dropped() + toClient.dropped());
    }

    @Test
    void shouldCompleteWhenTheServersFirstFlightIsLost() throws Exception
    {
        // ServerHello, Certificate, ServerKeyExchange, CertificateRequest, ServerHelloDone (RFC 6347 §4.2.4 flight 4).
        toClient.drop(DtlsPipe.firstSendingOf(2, 11, 12, 13, 14));
        start(fastResend().build());
        assertConnectedWithMirroredKeys(1200);
        assertTrue(toClient.dropped() >= 5, "dropped " + toClient.dropped());
    }

    @Test
    void shouldCompleteWhenTheClientsFinishedIsLost() throws Exception
    {
        toServer.drop(DtlsPipe.firstFinished());
        start(fastResend().build());
        assertConnectedWithMirroredKeys(1200);
        assertEquals(1, toServer.dropped());
        assertTrue(toServer.count(DtlsPipe::isEncryptedHandshake) >= 2, "the client resent its Finished");
    }

    @Test
    void shouldResendTheServersLastFlightWhenTheClientResendsItsOwn() throws Exception
    {
        // The server's ChangeCipherSpec + Finished is lost: the server has finished, the client has not. The client
        // resends its last flight; the server must answer with its last flight again (RFC 6347 §4.2.4).
        toClient.drop(DtlsPipe.firstFinished());
        start(fastResend().build());
        assertConnectedWithMirroredKeys(1200);
        assertEquals(1, toClient.dropped());
        assertTrue(toClient.count(DtlsPipe::isEncryptedHandshake) >= 2, "the server resent its Finished");
        assertTrue(toServer.count(DtlsPipe::isEncryptedHandshake) >= 2, "the client resent its Finished");
    }

    @Test
    void shouldFragmentFlightsToASmallerPathMtu() throws Exception
    {
        final DtlsEndpointConfig config = fastResend().maxDatagramBytes(300).build();
        start(config);
        assertConnectedWithMirroredKeys(300);
        // The Certificate message (about 400 octets) needed more than one fragment (RFC 6347 §4.2.3).
        assertTrue(toClient.count(datagram -> DtlsPipe.isPlainHandshake(datagram, 11)) >= 2);
    }

    @Test
    void shouldAgreeOnTheServersPreferredCommonProfile() throws Exception
    {
        final DtlsEndpointConfig clientConfig = fastResend().profiles(List.of(DtlsSrtpProfile.SRTP_AEAD_AES_128_GCM,
            DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_32)).build();
        final DtlsEndpointConfig serverConfig = fastResend().profiles(List.of(
            DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_80, DtlsSrtpProfile.SRTP_AEAD_AES_128_GCM)).build();
        start(clientConfig, serverConfig, CLIENT_CERTIFICATE.fingerprint(), SERVER_CERTIFICATE.fingerprint());
        assertConnectedWithMirroredKeys(1200);
        assertEquals(DtlsSrtpProfile.SRTP_AEAD_AES_128_GCM, serverEvents.connected.get().profile());
        assertEquals(56, clientEvents.connected.get().keyingMaterial().length);
    }

    @Test
    void shouldFailBothSidesWithoutACommonSrtpProfile() throws Exception
    {
        final DtlsEndpointConfig clientConfig = fastResend().profiles(
            List.of(DtlsSrtpProfile.SRTP_AEAD_AES_128_GCM)).build();
        final DtlsEndpointConfig serverConfig = fastResend().profiles(
            List.of(DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_80)).build();
        start(clientConfig, serverConfig, CLIENT_CERTIFICATE.fingerprint(), SERVER_CERTIFICATE.fingerprint());
        assertEquals(DtlsFailure.NO_SRTP_PROFILE, serverEvents.failed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(DtlsFailure.ALERT_RECEIVED, clientEvents.failed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertFalse(clientEvents.connected.isDone() || serverEvents.connected.isDone());
    }

    @Test
    void shouldFailWhenTheServersCertificateDoesNotMatchItsFingerprint() throws Exception
    {
        start(fastResend().build(), fastResend().build(), CLIENT_CERTIFICATE.fingerprint(), STRANGER);
        assertEquals(DtlsFailure.FINGERPRINT_MISMATCH, clientEvents.failed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(clientEvents.detail.contains(STRANGER.hex()), clientEvents.detail);
        assertEquals(DtlsFailure.ALERT_RECEIVED, serverEvents.failed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(serverEvents.detail.contains("bad_certificate") || serverEvents.detail.contains("Bad"),
            serverEvents.detail);
        assertEquals(DtlsEndpoint.State.CLOSED, client.state());
        assertFalse(clientEvents.connected.isDone() || serverEvents.connected.isDone());
    }

    @Test
    void shouldFailWhenTheClientsCertificateDoesNotMatchItsFingerprint() throws Exception
    {
        start(fastResend().build(), fastResend().build(), STRANGER, SERVER_CERTIFICATE.fingerprint());
        assertEquals(DtlsFailure.FINGERPRINT_MISMATCH, serverEvents.failed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(DtlsFailure.ALERT_RECEIVED, clientEvents.failed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertFalse(clientEvents.connected.isDone() || serverEvents.connected.isDone());
    }

    @Test
    void shouldTimeOutOnTheInjectedClockWhenTheRelayPollsIt() throws Exception
    {
        final AtomicLong nowMs = new AtomicLong(1_000_000);
        final DtlsEndpointConfig config = DtlsEndpointConfig.builder().clockMs(nowMs::get).handshakeTimeoutMs(10_000)
            .build();
        // A client whose peer never answers.
        client = DtlsEndpoint.start(DtlsRole.CLIENT, CLIENT_CERTIFICATE, SERVER_CERTIFICATE.fingerprint(), config,
            new DtlsPipe(), clientEvents);
        awaitSent(client, 1);
        client.onTimer(nowMs.get() + 9_999);
        assertEquals(DtlsEndpoint.State.HANDSHAKING, client.state());
        assertFalse(clientEvents.failed.isDone());
        nowMs.addAndGet(10_000);
        client.onTimer(nowMs.get());
        assertEquals(DtlsFailure.TIMEOUT, clientEvents.failed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(DtlsEndpoint.State.CLOSED, client.state());
        assertFalse(client.onDatagram(new byte[] {22, (byte)0xFE, (byte)0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, 13));
        assertEquals(1, client.droppedDatagrams());
    }

    @Test
    void shouldTimeOutOnTheInjectedClockWithoutThePoll() throws Exception
    {
        final AtomicLong nowMs = new AtomicLong();
        final DtlsEndpointConfig config = fastResend().clockMs(nowMs::get).handshakeTimeoutMs(10_000).build();
        final DtlsPipe silence = new DtlsPipe();
        client = DtlsEndpoint.start(DtlsRole.CLIENT, CLIENT_CERTIFICATE, SERVER_CERTIFICATE.fingerprint(), config,
            silence, clientEvents);
        awaitSent(client, 2);
        assertFalse(clientEvents.failed.isDone());
        nowMs.set(10_000);
        // The handshake thread looks at the clock whenever its resend timer wakes it.
        assertEquals(DtlsFailure.TIMEOUT, clientEvents.failed.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void shouldDropAndCountMalformedDatagramsAndStillConnect() throws Exception
    {
        server = DtlsEndpoint.start(DtlsRole.SERVER, SERVER_CERTIFICATE, CLIENT_CERTIFICATE.fingerprint(),
            fastResend().build(), toClient, serverEvents);
        assertFalse(server.onDatagram(new byte[] {22, (byte)0xFE, (byte)0xFD, 0, 0}, 0, 5));
        assertFalse(server.onDatagram(new byte[] {23, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 9}, 0, 14));
        final byte[] lying = {22, (byte)0xFE, (byte)0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 1, 2, 3};
        assertFalse(server.onDatagram(java.nio.ByteBuffer.wrap(lying), 0, lying.length));
        assertEquals(3, server.malformedDatagrams());
        client = DtlsEndpoint.start(DtlsRole.CLIENT, CLIENT_CERTIFICATE, SERVER_CERTIFICATE.fingerprint(),
            fastResend().build(), toServer, clientEvents);
        toServer.connect(server);
        toClient.connect(client);
        clientEvents.connected.get(WAIT_SECONDS, TimeUnit.SECONDS);
        serverEvents.connected.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(3, server.malformedDatagrams());
        assertTrue(server.acceptedDatagrams() > 0);
    }

    @Test
    void shouldTellBothSidesWhenAConnectionCloses() throws Exception
    {
        start(fastResend().build());
        clientEvents.connected.get(WAIT_SECONDS, TimeUnit.SECONDS);
        serverEvents.connected.get(WAIT_SECONDS, TimeUnit.SECONDS);
        client.close();
        assertEquals("closed locally", clientEvents.closed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        // Our close_notify reaches the server (RFC 5246 §7.2.1).
        assertEquals("the peer closed the DTLS connection", serverEvents.closed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(DtlsEndpoint.State.CLOSED, server.state());
        assertEquals(2, clientEvents.events.get());
        assertEquals(2, serverEvents.events.get());
    }

    @Test
    void shouldReportACloseBeforeTheHandshakeAsAFailure() throws Exception
    {
        server = DtlsEndpoint.start(DtlsRole.SERVER, SERVER_CERTIFICATE, CLIENT_CERTIFICATE.fingerprint(),
            DtlsEndpointConfig.defaults(), toClient, serverEvents);
        server.close();
        server.close();
        assertEquals(DtlsFailure.CLOSED, serverEvents.failed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(1, serverEvents.events.get());
    }

    private static void awaitSent(final DtlsEndpoint endpoint, final long datagrams) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (endpoint.sentDatagrams() < datagrams)
        {
            assertTrue(System.nanoTime() < deadlineNs, "sent only " + endpoint.sentDatagrams());
            Thread.sleep(5);
        }
    }

    /** Records what a listener hears. */
    static final class Events implements DtlsListener
    {
        final CompletableFuture<DtlsSrtpKeys> connected = new CompletableFuture<>();
        final CompletableFuture<DtlsFailure> failed = new CompletableFuture<>();
        final CompletableFuture<String> closed = new CompletableFuture<>();
        final AtomicInteger events = new AtomicInteger();
        volatile String detail = "";

        @Override
        public void onDtlsConnected(final DtlsEndpoint endpoint, final DtlsSrtpKeys keys)
        {
            events.incrementAndGet();
            connected.complete(keys);
        }

        @Override
        public void onDtlsFailed(final DtlsEndpoint endpoint, final DtlsFailure failure, final String why)
        {
            events.incrementAndGet();
            detail = why;
            failed.complete(failure);
        }

        @Override
        public void onDtlsClosed(final DtlsEndpoint endpoint, final String why)
        {
            events.incrementAndGet();
            closed.complete(why);
        }
    }
}
