package io.sipline.media.dtls;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.DTLSClientProtocol;
import org.bouncycastle.tls.DTLSServerProtocol;
import org.bouncycastle.tls.DTLSTransport;
import org.bouncycastle.tls.TlsFatalAlertReceived;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;

/**
 * The DTLS side of one DTLS-SRTP media leg (RFC 5764), client or server, fed with packets by the relay rather than
 * reading a socket. The media thread hands in every datagram whose first octet is 20..63 (RFC 7983) with
 * {@link #onDatagram(byte[], int, int)}, which checks the record framing ({@link DtlsRecords}), copies it into a
 * bounded queue and returns at once; malformed ones and those past a full queue are dropped and counted. A virtual
 * thread of the endpoint runs Bouncy Castle's blocking handshake on that queue, resends flights on its timer
 * (RFC 6347 §4.2.4), sends through the relay's {@link DtlsSender}, and once the peer's certificate has matched its
 * SDP fingerprint (RFC 5763 §5) hands the {@link DtlsListener} the SRTP keys of both directions. It then keeps
 * serving the connection, so that a peer resending its last flight gets ours again (RFC 6347 §4.2.4), until
 * either side closes.
 *
 * <p>Every ending reaches the listener, never an exception: a fingerprint mismatch, an alert, no common SRTP
 * profile, or no completion within {@link DtlsEndpointConfig#handshakeTimeoutMs()} on the configured clock, checked
 * by the handshake thread and by {@link #onTimer(long)}.
 *
 * <p>Threading: {@link #onDatagram} and the counters it keeps belong to the media thread; {@link #onTimer} and
 * {@link #close()} may be called from any thread and never block; the sender and the listener are called on the
 * handshake thread. Datagrams handed in are borrowed for the call.
 */
public final class DtlsEndpoint implements AutoCloseable
{
    /** Where an endpoint stands. */
    public enum State
    {
        /** Waiting for or running the handshake. */
        HANDSHAKING,
        /** Keys delivered; serving retransmissions and alerts. */
        CONNECTED,
        /** Ended: failed, closed by the peer, or closed locally. */
        CLOSED
    }

    private static final int CONNECTED_RECEIVE_BYTES = 2048;
    private static final int CONNECTED_WAIT_MS = 60_000;

    private final DtlsRole role;
    private final DtlsSrtpNegotiation negotiation;
    private final DtlsEndpointConfig config;
    private final DtlsListener listener;
    private final PacketDatagramTransport transport;
    private final AtomicReference<State> state = new AtomicReference<>(State.HANDSHAKING);
    private final Thread thread;
    private volatile long acceptedDatagrams;
    private volatile long malformedDatagrams;
    private volatile long droppedDatagrams;

    private DtlsEndpoint(
        final DtlsRole role,
        final DtlsCertificate certificate,
        final DtlsFingerprint peerFingerprint,
        final DtlsEndpointConfig config,
        final DtlsSender sender,
        final DtlsListener listener)
    {
        this.role = role;
        this.config = config;
        this.listener = listener;
        this.negotiation = new DtlsSrtpNegotiation(role, certificate, peerFingerprint, config.profiles(),
            new BcTlsCrypto(config.random()));
        this.transport = new PacketDatagramTransport(config.inboundQueueCapacity(), sender,
            config.maxDatagramBytes(), config.clockMs(), config.clockMs().getAsLong() + config.handshakeTimeoutMs());
        this.thread = Thread.ofVirtual().name("dtls-" + role.name().toLowerCase(Locale.ROOT))
            .unstarted(this::run);
    }

    /**
     * Starts the endpoint of one leg: a client sends its ClientHello at once, a server waits for one.
     *
     * @param role            from {@link DtlsSetup} negotiation.
     * @param certificate     the server's certificate, shared by every leg.
     * @param peerFingerprint the peer's {@code a=fingerprint}, which its certificate must match.
     * @param config          timeouts, sizes, profiles and clock.
     * @param sender          sends our datagrams towards the peer.
     * @param listener        hears the keys or the failure.
     * @return the running endpoint.
     */
    public static DtlsEndpoint start(
        final DtlsRole role,
        final DtlsCertificate certificate,
        final DtlsFingerprint peerFingerprint,
        final DtlsEndpointConfig config,
        final DtlsSender sender,
        final DtlsListener listener)
    {
        final DtlsEndpoint endpoint = new DtlsEndpoint(role, certificate, peerFingerprint, config, sender, listener);
        endpoint.thread.start();
        return endpoint;
    }

    /**
     * Hands in one DTLS datagram received on the leg. Never blocks, never throws for bad input.
     *
     * @param datagram the buffer, borrowed for the call (the endpoint keeps a copy).
     * @param offset   first octet.
     * @param length   octets.
     * @return true when queued for the handshake; false when dropped (malformed, queue full or endpoint closed).
     */
    public boolean onDatagram(final byte[] datagram, final int offset, final int length)
    {
        if (!DtlsRecords.isWellFormed(datagram, offset, length))
        {
            malformedDatagrams++;
            return false;
        }
        return queue(Arrays.copyOfRange(datagram, offset, offset + length));
    }

    /**
     * Hands in one DTLS datagram received on the leg, from a (direct) buffer. Never blocks, never throws for bad
     * input.
     *
     * @param datagram the buffer, borrowed for the call; position and limit are left alone.
     * @param offset   absolute index of the first octet.
     * @param length   octets.
     * @return true when queued for the handshake; false when dropped (malformed, queue full or endpoint closed).
     */
    public boolean onDatagram(final ByteBuffer datagram, final int offset, final int length)
    {
        if (!DtlsRecords.isWellFormed(datagram, offset, length))
        {
            malformedDatagrams++;
            return false;
        }
        final byte[] copy = new byte[length];
        datagram.get(offset, copy, 0, length);
        return queue(copy);
    }

    private boolean queue(final byte[] copy)
    {
        if (transport.offer(copy))
        {
            acceptedDatagrams++;
            return true;
        }
        droppedDatagrams++;
        return false;
    }

    /**
     * Fails a handshake still running at {@code nowMs} past its deadline; the relay calls it from its timers so
     * that the failure is reported on time even while no datagram arrives. Never blocks.
     *
     * @param nowMs the time on the configured clock.
     */
    public void onTimer(final long nowMs)
    {
        if (State.HANDSHAKING == state.get() && nowMs >= transport.deadlineMs())
        {
            transport.abort(DtlsFailure.TIMEOUT);
        }
    }

    /**
     * Ends the leg: an unfinished handshake is reported as {@link DtlsFailure#CLOSED}, a connection sends its
     * {@code close_notify} and is reported with {@link DtlsListener#onDtlsClosed}. Never blocks; idempotent.
     */
    @Override
    public void close()
    {
        transport.abort(DtlsFailure.CLOSED);
    }

    /** @return our role. */
    public DtlsRole role()
    {
        return role;
    }

    /** @return where the endpoint stands. */
    public State state()
    {
        return state.get();
    }

    /** @return datagrams queued for the handshake thread; read on the media thread. */
    public long acceptedDatagrams()
    {
        return acceptedDatagrams;
    }

    /** @return datagrams dropped for bad DTLS record framing; read on the media thread. */
    public long malformedDatagrams()
    {
        return malformedDatagrams;
    }

    /** @return well-formed datagrams dropped because the queue was full or the endpoint done. */
    public long droppedDatagrams()
    {
        return droppedDatagrams;
    }

    /** @return datagrams handed to the sender. */
    public long sentDatagrams()
    {
        return transport.sentDatagrams();
    }

    /** @return the largest datagram handed to the sender, in octets. */
    public int largestSentDatagram()
    {
        return transport.largestSent();
    }

    private void run()
    {
        final DTLSTransport dtls;
        try
        {
            dtls = DtlsRole.CLIENT == role ?
                new DTLSClientProtocol().connect(new SrtpDtlsClient(negotiation, config.initialResendMs()), transport) :
                acceptWithoutCookie();
        }
        catch (final IOException | RuntimeException e)
        {
            state.set(State.CLOSED);
            reportFailure(e);
            return;
        }
        transport.handshakeDone();
        state.set(State.CONNECTED);
        try
        {
            listener.onDtlsConnected(this, negotiation.keys());
        }
        catch (final RuntimeException ignored)
        {
            // The listener must not throw; the connection stands regardless.
        }
        serve(dtls);
    }

    private DTLSTransport acceptWithoutCookie() throws IOException
    {
        final DTLSServerProtocol protocol = new DTLSServerProtocol();
        // ICE connectivity checks have already proven the peer's address (RFC 8445 §7), so the cookie
        // exchange of RFC 6347 §4.2.1 would only add a round trip.
        protocol.setVerifyRequests(false);
        return protocol.accept(new SrtpDtlsServer(negotiation, config.initialResendMs()), transport);
    }

    private void serve(final DTLSTransport dtls)
    {
        // Once connected a peer sends only resent final flights and alerts, all far smaller than this.
        final byte[] discard = new byte[CONNECTED_RECEIVE_BYTES];
        String detail;
        while (true)
        {
            try
            {
                // DTLS-SRTP carries no application data (RFC 5764 §4.1); receiving answers the peer's resent
                // flights and notices its alerts.
                dtls.receive(discard, 0, discard.length, CONNECTED_WAIT_MS);
            }
            catch (final DtlsAbortException e)
            {
                detail = transport.aborted() ? "closed locally" : "the peer closed the DTLS connection";
                break;
            }
            catch (final TlsFatalAlertReceived e)
            {
                detail = "the peer sent a fatal alert: " + AlertDescription.getText(e.getAlertDescription());
                break;
            }
            catch (final IOException | RuntimeException e)
            {
                detail = "the DTLS connection failed: " + e.getMessage();
                break;
            }
        }
        try
        {
            dtls.close();
        }
        catch (final IOException | RuntimeException ignored)
        {
            // Closing sends our close_notify at best; there is nothing more to do if it fails.
        }
        state.set(State.CLOSED);
        try
        {
            listener.onDtlsClosed(this, detail);
        }
        catch (final RuntimeException ignored)
        {
            // The listener must not throw.
        }
    }

    private void reportFailure(final Throwable cause)
    {
        final DtlsFailure failure;
        final String detail;
        if (null != negotiation.failure())
        {
            failure = negotiation.failure();
            detail = negotiation.failureDetail();
        }
        else if (cause instanceof DtlsAbortException abort)
        {
            failure = abort.failure();
            detail = abort.getMessage();
        }
        else if (cause instanceof TlsFatalAlertReceived alert)
        {
            failure = DtlsFailure.ALERT_RECEIVED;
            detail = "the peer sent a fatal alert: " + AlertDescription.getText(alert.getAlertDescription());
        }
        else
        {
            failure = DtlsFailure.PROTOCOL_ERROR;
            detail = "DTLS handshake failed: " + cause;
        }
        transport.abort(failure);
        try
        {
            listener.onDtlsFailed(this, failure, detail);
        }
        catch (final RuntimeException ignored)
        {
            // The listener must not throw.
        }
    }
}
