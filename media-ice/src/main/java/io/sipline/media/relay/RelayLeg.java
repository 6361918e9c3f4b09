package io.sipline.media.relay;

import io.sipline.media.srtp.SrtpContext;
import io.sipline.media.srtp.SrtpPolicy;

import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One side of a relayed stream: the RTP socket (even port) and the RTCP socket (odd port) one peer talks to, the
 * address that peer is sent to, and its SRTP contexts when the leg is secure. The packet path lives in
 * {@link MediaThread}; this class holds the leg's state and its control methods.
 *
 * <p><b>Latching</b> (symmetric RTP, RFC 4961; how a relay reaches a peer behind NAT): until the first good packet
 * arrives the leg sends to the address of the peer's SDP; that packet's source address becomes the leg's peer
 * (separately for the RTCP port), and from then on datagrams from any other address are dropped
 * ({@link RelayDrop#WRONG_SOURCE}). On a secure leg only a packet that authenticates latches, so a forged one cannot
 * steal the leg.
 *
 * <p>Threading: the fields without {@code volatile} are owned by the media thread. The control methods
 * ({@link #remote}, {@link #keys}, {@link DtlsLeg#keysReady}, ...) may be called from any thread: they hand the change
 * to the media thread's queue. Counters are written by the media thread with release stores and read from anywhere.
 */
public final class RelayLeg implements DtlsLeg
{
    final MediaThread thread;
    final RelayStream stream;
    final DatagramChannel rtpChannel;
    final DatagramChannel rtcpChannel;
    final boolean secure;
    final DtlsPacketSink dtls;
    SelectionKey rtpKey;
    SelectionKey rtcpKey;
    RelayLeg peer;
    InetSocketAddress remoteRtp;
    InetSocketAddress remoteRtcp;
    boolean rtcpMux;
    InetSocketAddress latchedRtp;
    InetSocketAddress latchedRtcp;
    SrtpContext inbound;
    SrtpContext outbound;
    long lastPacketNs;
    private final int rtpPort;
    private final int rtcpPort;
    private volatile InetSocketAddress latchedView;
    private final AtomicLong packetsIn = new AtomicLong();
    private final AtomicLong packetsOut = new AtomicLong();
    private final AtomicLongArray drops = new AtomicLongArray(RelayDrop.COUNT);

    RelayLeg(final MediaThread thread, final RelayStream stream, final DatagramChannel[] channels, final int rtpPort,
        final boolean secure, final DtlsPacketSink dtls)
    {
        this.thread = thread;
        this.stream = stream;
        this.rtpChannel = channels[0];
        this.rtcpChannel = channels[1];
        this.rtpPort = rtpPort;
        this.rtcpPort = rtpPort + 1;
        this.secure = secure || null != dtls;
        this.dtls = dtls;
    }

    /** @return the local RTP port (even), to write into this leg's SDP. */
    public int rtpPort()
    {
        return rtpPort;
    }

    /** @return the local RTCP port (the odd one above), for {@code a=rtcp} when RTCP is not multiplexed. */
    public int rtcpPort()
    {
        return rtcpPort;
    }

    /** @return whether the leg carries SRTP (SDES or DTLS-SRTP) rather than plain RTP. */
    public boolean secure()
    {
        return secure;
    }

    /** @return the other leg of the stream. */
    public RelayLeg peer()
    {
        return peer;
    }

    /** @return the stream this leg belongs to. */
    public RelayStream stream()
    {
        return stream;
    }

    /**
     * Where to send before latching, from the peer's SDP. Any thread. When a later description moves the peer's RTP
     * to another address (RFC 3264 §8.3.1), or puts it on hold with no address, the latch is dropped: media goes to
     * the new address and the first good packet latches again. A WebRTC leg keeps its latch: ICE chose it.
     *
     * @param rtp     the peer's RTP address ({@code c=} and {@code m=} port), or null if unknown.
     * @param rtcp    the peer's RTCP address ({@code a=rtcp} or the port above), or null.
     * @param rtcpMux whether RTCP shares the RTP port both ways (RFC 5761), as negotiated.
     */
    public void remote(final InetSocketAddress rtp, final InetSocketAddress rtcp, final boolean rtcpMux)
    {
        thread.execute(() -> {
            if (null == dtls && null != this.remoteRtp && !this.remoteRtp.equals(rtp))
            {
                latchedRtp = null;
                latchedRtcp = null;
                latchedView = null;
            }
            this.remoteRtp = rtp;
            this.remoteRtcp = rtcp;
            this.rtcpMux = rtcpMux;
        });
    }

    /**
     * The SRTP keys of a secure leg (from SDES, RFC 4568 §6.1: each side sends with its own key). Any thread.
     *
     * @param send    the policy that protects what the relay sends to the peer.
     * @param receive the policy that unprotects what the peer sends.
     */
    public void keys(final SrtpPolicy send, final SrtpPolicy receive)
    {
        if (!secure)
        {
            throw new IllegalStateException("a plain RTP leg takes no SRTP keys");
        }
        final SrtpContext out = SrtpContext.outbound(send);
        final SrtpContext in = SrtpContext.inbound(receive);
        thread.execute(() -> {
            closeContexts();
            outbound = out;
            inbound = in;
        });
    }

    @Override
    public void keysReady(final SrtpPolicy outboundPolicy, final SrtpPolicy inboundPolicy)
    {
        keys(outboundPolicy, inboundPolicy);
    }

    @Override
    public void handshakeFailed(final String reason)
    {
        thread.execute(() -> thread.handshakeFailed(this, reason));
    }

    @Override
    public void dropped(final int reason)
    {
        thread.drop(this, reason);
    }

    @Override
    public void execute(final Runnable task)
    {
        thread.execute(task);
    }

    @Override
    public boolean send(final byte[] buffer, final int offset, final int length, final InetSocketAddress destination)
    {
        return thread.sendRaw(this, buffer, offset, length, destination);
    }

    @Override
    public void latch(final InetSocketAddress address)
    {
        latchedRtp = address;
        latchedView = address;
    }

    /** Media thread: the first good packet's source becomes the peer's address. */
    void latch(final InetSocketAddress source, final boolean rtcpPort)
    {
        if (rtcpPort)
        {
            latchedRtcp = source;
        }
        else
        {
            latchedRtp = source;
            latchedView = source;
        }
    }

    /** @return the address the RTP port latched to, or null before the first good packet. */
    public InetSocketAddress latched()
    {
        return latchedView;
    }

    /** @return packets received from the peer and accepted (authenticated on a secure leg). */
    public long packetsIn()
    {
        return packetsIn.get();
    }

    /** @return packets sent to the peer (relayed from the other leg). */
    public long packetsOut()
    {
        return packetsOut.get();
    }

    /**
     * @param reason a {@link RelayDrop} constant.
     * @return datagrams received on this leg's ports and dropped for that reason.
     */
    public long drops(final int reason)
    {
        return drops.get(reason);
    }

    void countIn()
    {
        // Single writer (the media thread): a release store is enough for readers elsewhere.
        packetsIn.lazySet(packetsIn.get() + 1);
    }

    void countOut()
    {
        packetsOut.lazySet(packetsOut.get() + 1);
    }

    void countDrop(final int reason)
    {
        drops.lazySet(reason, drops.get(reason) + 1);
    }

    /** Media thread: where RTP for the peer goes (latched, else from SDP), or null. */
    InetSocketAddress rtpDestination()
    {
        return null != latchedRtp ? latchedRtp : remoteRtp;
    }

    /** Media thread: where RTCP for the peer goes, or null. */
    InetSocketAddress rtcpDestination()
    {
        if (rtcpMux)
        {
            return rtpDestination();
        }
        return null != latchedRtcp ? latchedRtcp : remoteRtcp;
    }

    void closeContexts()
    {
        if (null != outbound)
        {
            outbound.close();
            outbound = null;
        }
        if (null != inbound)
        {
            inbound.close();
            inbound = null;
        }
    }
}
