package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;

/**
 * {@link UdpShardSockets#flush} called again from inside its own flush, as a connected peer channel's refused write
 * does it (the write fails with {@code ECONNREFUSED}, {@code exceptionCaught} runs at once, and the report of the
 * unreachable peer flushes the shard): the inner call must neither throw nor keep the outer one from sending. The shard
 * answers an OPTIONS statelessly on an {@link EmbeddedChannel}; a handler between it and the channel's head stands for
 * the failing write: each flush that passes it first flushes the shard again. Before the fix the inner call found the
 * slot the outer loop had just cleared and threw a NullPointerException (seen in a load run's server output), so the
 * answer never left.
 */
class UdpShardSocketsFlushTest
{
    private static final InetSocketAddress LOCAL = new InetSocketAddress(InetAddress.ofLiteral("192.0.2.1"), 5060);
    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.ofLiteral("192.0.2.7"), 5062);

    @Test
    void shouldSurviveAFlushFromInsideItsOwnFlush()
    {
        final UdpShardSockets shard =
            new UdpShardSockets(0, new StatelessResponder(0), PooledByteBufAllocator.DEFAULT, new DistinctErrors());
        final int[] reentered = {0};
        final ChannelOutboundHandlerAdapter reentrant = new ChannelOutboundHandlerAdapter()
        {
            @Override
            public void flush(final ChannelHandlerContext ctx)
            {
                reentered[0]++;
                shard.flush(); // what the unreachable report does, while the outer flush is in its loop
                ctx.flush();
            }
        };
        final EmbeddedChannel channel = new EmbeddedChannel(reentrant, shard);
        for (int call = 1; call <= 2; call++)
        {
            channel.writeInbound(new DatagramPacket(Unpooled.copiedBuffer(options(call), StandardCharsets.ISO_8859_1),
                LOCAL, PEER));
            channel.checkException();
            final DatagramPacket answer = channel.readOutbound();
            assertNotNull(answer, "the answer to OPTIONS " + call);
            assertTrue(answer.content().toString(StandardCharsets.ISO_8859_1).startsWith("SIP/2.0 200 "));
            answer.release();
            assertNull(channel.readOutbound());
        }
        assertTrue(reentered[0] >= 2, "each answer's flush went through the re-entering handler: " + reentered[0]);
        assertEquals(0, shard.snapshot().errors(), "no exception reached the shard");
        assertFalse(channel.finish());
    }

    private static String options(final int call)
    {
        return "OPTIONS sip:bob@192.0.2.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.7:5062;branch=z9hG4bK776asdhds" + call + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@atlanta.example>;tag=1928301774\r\n"
            + "To: <sip:bob@biloxi.example>\r\n"
            + "Call-ID: a84b4c76e66710-" + call + "@pc33.atlanta.example\r\n"
            + "CSeq: 1 OPTIONS\r\n"
            + "Content-Length: 0\r\n\r\n";
    }
}
