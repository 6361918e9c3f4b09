package io.sipline.sip.transport;

import io.netty.channel.ChannelHandlerContext;

/**
 * A socket a UDP shard writes on: a listening channel ({@link UdpEndpoint}) or a peer's connected channel
 * ({@link UdpPeers.Peer}), with its mark in the shard's list of sockets to flush ({@link UdpShardOutput}).
 *
 * <p>Not thread-safe; owned by the shard's event loop.
 */
abstract class UdpSink
{
    /** The channel's context in the shard's pipeline; null while a peer's channel is not active. */
    ChannelHandlerContext ctx;
    /** True while the socket is on the shard's list of sockets written since their last flush. */
    boolean dirty;
}
