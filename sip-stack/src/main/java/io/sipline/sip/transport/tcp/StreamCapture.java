package io.sipline.sip.transport.tcp;

import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.sipline.sip.capture.HepCaptureAgent;
import io.sipline.sip.transport.RealtimeClock;

/**
 * The send half of a connection's HEP capture: sits right below its {@link TcpConnection}, so that it sees every SIP
 * message the connection writes as the plain message (above the WebSocket framing and the TLS encryption), on the
 * connection's own loop whichever thread sent it, and mirrors it to the shard's {@link HepCaptureAgent}. CRLF
 * keep-alive answers and STUN answers are passed on without a capture. The read half is in {@link TcpConnection}.
 *
 * <p>Buffers: borrows each written buffer for the capture and passes it on untouched (the write releases it). One per
 * connection, made when capture is on; not thread-safe, runs on the connection's event loop.
 */
final class StreamCapture extends ChannelOutboundHandlerAdapter
{
    /** The pipeline name of this handler. */
    static final String NAME = "sip-capture";

    private final HepCaptureAgent agent;
    private final TcpConnection connection;

    StreamCapture(final HepCaptureAgent agent, final TcpConnection connection)
    {
        this.agent = agent;
        this.connection = connection;
    }

    @Override
    public void write(final ChannelHandlerContext ctx, final Object msg, final ChannelPromise promise)
    {
        if (msg instanceof ByteBuf bytes && bytes.isReadable()
            && HepCaptureAgent.startsSip(bytes.getByte(bytes.readerIndex())))
        {
            final InetSocketAddress remote = connection.flow();
            final InetSocketAddress local = connection.localAddress();
            if (null != remote && null != local)
            {
                agent.capture(connection.captureProtocol(), bytes, bytes.readerIndex(), bytes.readableBytes(), local,
                    remote, RealtimeClock.nanos());
            }
        }
        ctx.write(msg, promise);
    }
}
