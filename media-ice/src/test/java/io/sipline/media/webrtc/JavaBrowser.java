package io.sipline.media.webrtc;

import io.sipline.media.dtls.DtlsCertificate;
import io.sipline.media.dtls.DtlsEndpoint;
import io.sipline.media.dtls.DtlsEndpointConfig;
import io.sipline.media.dtls.DtlsFailure;
import io.sipline.media.dtls.DtlsFingerprint;
import io.sipline.media.dtls.DtlsListener;
import io.sipline.media.dtls.DtlsRole;
import io.sipline.media.dtls.DtlsSrtpKeys;
import io.sipline.media.sdp.MediaDescription;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A browser's media stack in Java, for tests: one UDP socket on loopback, ICE checks as a full controlling agent
 * ({@link IceChecks}), Bouncy Castle DTLS through {@link DtlsEndpoint} with a certificate of its own, and SRTP with the
 * exported keys. A reader thread sorts what arrives by its first octet (RFC 7983): DTLS to the endpoint, STUN and
 * RTP/RTCP to queues the test reads.
 */
final class JavaBrowser implements AutoCloseable
{
    static final String UFRAG = "brws";
    static final String PASSWORD = "browserPasswordOf24Char";

    final DatagramChannel channel;
    volatile DtlsCertificate certificate = DtlsCertificate.generate(new SecureRandom());
    volatile CompletableFuture<DtlsSrtpKeys> keys = new CompletableFuture<>();
    volatile CompletableFuture<String> failure = new CompletableFuture<>();
    final LinkedBlockingQueue<byte[]> stun = new LinkedBlockingQueue<>();
    final LinkedBlockingQueue<byte[]> media = new LinkedBlockingQueue<>();
    private final IceChecks checks = new IceChecks();
    private final Thread reader;
    private volatile DtlsEndpoint dtls;
    private volatile InetSocketAddress relay;
    private volatile String ufrag = UFRAG;
    private volatile String password = PASSWORD;

    JavaBrowser() throws IOException
    {
        channel = DatagramChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        reader = Thread.ofPlatform().daemon().name("java-browser").start(this::read);
    }

    int port() throws IOException
    {
        return ((InetSocketAddress)channel.getLocalAddress()).getPort();
    }

    /** The browser's media section: one audio stream, ICE credentials, its fingerprint and setup. */
    String media(final String setup) throws IOException
    {
        return "m=audio " + port() + " UDP/TLS/RTP/SAVPF 0 101\r\nc=IN IP4 127.0.0.1\r\n" +
            "a=rtpmap:0 PCMU/8000\r\na=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\na=mid:0\r\n" +
            "a=ice-ufrag:" + ufrag + "\r\na=ice-pwd:" + password + "\r\na=fingerprint:" +
            certificate.sdpFingerprint() + "\r\na=setup:" + setup + "\r\na=rtcp-mux\r\n" +
            "a=candidate:1 1 udp 2122260223 127.0.0.1 " + port() + " typ host\r\n";
    }

    /** Sends a check to the relay's candidate with the relay's credentials, as {@code a=ice-*} of its SDP gave. */
    void check(final MediaDescription relayMedia, final boolean useCandidate) throws IOException
    {
        check(relayMedia, relayMedia.attribute("ice-pwd"), useCandidate);
    }

    /** Sends a check signed with the given password, right or wrong. */
    void check(final MediaDescription relayMedia, final String relayPassword, final boolean useCandidate)
        throws IOException
    {
        final String[] candidate = relayMedia.attribute("candidate").split(" ");
        relay = new InetSocketAddress(InetAddress.ofLiteral(candidate[4]), Integer.parseInt(candidate[5]));
        final byte[] request = new byte[512];
        final int n = checks.request(request, relayMedia.attribute("ice-ufrag") + ":" + ufrag, relayPassword,
            useCandidate);
        channel.send(ByteBuffer.wrap(request, 0, n), relay);
    }

    /** An ICE restart, as {@code pc.restartIce()} does: new credentials for the next offer, DTLS untouched. */
    void restartIce(final String newUfrag, final String newPassword)
    {
        ufrag = newUfrag;
        password = newPassword;
    }

    /**
     * Ends the DTLS association and takes a new certificate, whose fingerprint the next description carries: a new
     * association (RFC 8842 §4), started with {@link #startDtls} once the relay answered; {@link #keys} are its keys.
     */
    void newAssociation()
    {
        final DtlsEndpoint endpoint = dtls;
        dtls = null;
        if (null != endpoint)
        {
            endpoint.close();
        }
        certificate = DtlsCertificate.generate(new SecureRandom());
        keys = new CompletableFuture<>();
        failure = new CompletableFuture<>();
    }

    /** Starts DTLS towards the relay's address of the last check, checking the relay's SDP fingerprint. */
    void startDtls(final DtlsRole role, final MediaDescription relayMedia)
    {
        final CompletableFuture<DtlsSrtpKeys> connected = keys;
        final CompletableFuture<String> failed = failure;
        dtls = DtlsEndpoint.start(role, certificate, DtlsFingerprint.parse(relayMedia.attribute("fingerprint")),
            DtlsEndpointConfig.builder().handshakeTimeoutMs(8_000).initialResendMs(200).build(),
            (datagram, offset, length) -> send(datagram, offset, length), new DtlsListener()
            {
                @Override
                public void onDtlsConnected(final DtlsEndpoint endpoint, final DtlsSrtpKeys k)
                {
                    connected.complete(k);
                }

                @Override
                public void onDtlsFailed(final DtlsEndpoint endpoint, final DtlsFailure f, final String detail)
                {
                    failed.complete(f + ": " + detail);
                }

                @Override
                public void onDtlsClosed(final DtlsEndpoint endpoint, final String detail)
                {
                }
            });
    }

    void send(final byte[] datagram, final int offset, final int length)
    {
        try
        {
            channel.send(ByteBuffer.wrap(datagram, offset, length), relay);
        }
        catch (final IOException e)
        {
            // Lost, as on a network; DTLS resends.
        }
    }

    /** @return the next RTP/RTCP datagram from the relay, or null after the timeout. */
    byte[] receiveMedia(final long timeoutMs) throws InterruptedException
    {
        return media.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    private void read()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(4096);
        while (channel.isOpen())
        {
            try
            {
                buffer.clear();
                channel.receive(buffer);
                buffer.flip();
                final byte[] datagram = Arrays.copyOf(buffer.array(), buffer.limit());
                if (0 == datagram.length)
                {
                    continue;
                }
                final int first = datagram[0] & 0xFF;
                final DtlsEndpoint endpoint = dtls;
                if (first <= 3)
                {
                    stun.add(datagram);
                }
                else if (first >= 20 && first <= 63 && null != endpoint)
                {
                    endpoint.onDatagram(datagram, 0, datagram.length);
                }
                else if (first >= 128 && first <= 191)
                {
                    media.add(datagram);
                }
            }
            catch (final IOException e)
            {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException
    {
        final DtlsEndpoint endpoint = dtls;
        if (null != endpoint)
        {
            endpoint.close();
        }
        channel.close();
        try
        {
            reader.join(2_000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
