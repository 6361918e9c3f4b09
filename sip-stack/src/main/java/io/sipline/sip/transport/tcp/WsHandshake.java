package io.sipline.sip.transport.tcp;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketHandshakeException;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker13;
import io.netty.util.ReferenceCountUtil;

/**
 * The HTTP upgrade of a SIP-over-WebSocket connection (RFC 6455 §4.2, RFC 7118 §4), above Netty's
 * {@link HttpServerCodec} and {@link HttpObjectAggregator}. It serves one thing: a {@code GET} upgrade to
 * {@code websocket}, version 13, on the configured path (404 otherwise), from an allowed {@code Origin} (403), offering
 * the {@code sip} subprotocol (400 without it: RFC 7118 §4 forbids a SIP WebSocket server to accept a handshake
 * that does not). The 101 is Netty's {@link WebSocketServerHandshaker13} answer (accept key, subprotocol). Then the
 * pipeline becomes {@code [SslHandler] -> WsFrames -> TcpConnection}: the HTTP handlers and this one leave, and the
 * connection enters its shard's table like an accepted TCP connection. A refusal is answered and the connection closed.
 *
 * <p>Not thread-safe; one per connection, on its loop. Releases the request it reads.
 */
final class WsHandshake extends ChannelInboundHandlerAdapter
{
    /** The subprotocol token (RFC 7118 §3, registered with IANA). */
    static final String SIP = "sip";

    private final WsFrames frames;
    private final WsSettings settings;
    private final WsCounters counters;
    private final StreamMessageHandler handler;
    private final TcpCounters messageCounters;
    private final TcpShardConnections shard;
    private final boolean tls;

    WsHandshake(final WsFrames frames, final WsSettings settings, final WsCounters counters,
        final StreamMessageHandler handler, final TcpCounters messageCounters, final TcpShardConnections shard,
        final boolean tls)
    {
        this.frames = frames;
        this.settings = settings;
        this.counters = counters;
        this.handler = handler;
        this.messageCounters = messageCounters;
        this.shard = shard;
        this.tls = tls;
    }

    /** Release rule: the aggregated request is released here, in the {@code finally}. */
    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        try
        {
            if (msg instanceof FullHttpRequest request)
            {
                upgrade(ctx, request);
            }
        }
        finally
        {
            ReferenceCountUtil.release(msg);
        }
    }

    private void upgrade(final ChannelHandlerContext ctx, final FullHttpRequest request)
    {
        final HttpHeaders headers = request.headers();
        if (!request.decoderResult().isSuccess())
        {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, WsCounters.BAD_HANDSHAKE, "Malformed HTTP request");
            return;
        }
        final String uri = request.uri();
        final int query = uri.indexOf('?');
        final String path = query < 0 ? uri : uri.substring(0, query);
        if (null != settings.path() && !settings.path().equals(path))
        {
            refuse(ctx, HttpResponseStatus.NOT_FOUND, WsCounters.PATH_REFUSED, "No SIP WebSocket service at " + path);
            return;
        }
        if (!HttpMethod.GET.equals(request.method()) || !headers.containsValue(HttpHeaderNames.CONNECTION,
            HttpHeaderValues.UPGRADE, true) || !headers.containsValue(HttpHeaderNames.UPGRADE,
            HttpHeaderValues.WEBSOCKET, true))
        {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, WsCounters.BAD_HANDSHAKE,
                "Only a GET upgrade to websocket is served here (RFC 6455 section 4.2.1)");
            return;
        }
        if (!"13".equals(headers.get(HttpHeaderNames.SEC_WEBSOCKET_VERSION)))
        {
            final FullHttpResponse response = answer(HttpResponseStatus.UPGRADE_REQUIRED,
                "WebSocket version 13 is required (RFC 6455 section 4.4)");
            response.headers().set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, "13");
            counters.increment(WsCounters.BAD_HANDSHAKE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        if (!offersSip(headers))
        {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, WsCounters.NO_SIP_SUBPROTOCOL,
                "The sip WebSocket subprotocol is required (RFC 7118 section 4)");
            return;
        }
        if (null != settings.origins() && !settings.origins().contains(headers.get(HttpHeaderNames.ORIGIN, "")))
        {
            refuse(ctx, HttpResponseStatus.FORBIDDEN, WsCounters.ORIGIN_REFUSED, "Origin not allowed");
            return;
        }
        final FullHttpResponse accepted;
        try
        {
            accepted = new SipHandshaker(uri, settings.maxFrameBytes()).response(request);
        }
        catch (final WebSocketHandshakeException e)
        {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, WsCounters.BAD_HANDSHAKE, e.getMessage());
            return;
        }
        // The codec encodes the 101 during this write, so it can leave the pipeline right after.
        ctx.writeAndFlush(accepted);
        final ChannelPipeline pipeline = ctx.pipeline();
        pipeline.remove(HttpObjectAggregator.class);
        pipeline.remove(HttpServerCodec.class);
        final TcpConnection connection = new TcpConnection(handler, messageCounters, settings.maxMessageBytes(), 0,
            shard, tls, null, true);
        pipeline.addAfter(pipeline.context(frames).name(), "sip", connection);
        frames.upgraded(connection);
        pipeline.remove(this);
    }

    /** True when one of the offered subprotocols is {@code sip} (a comma-separated list, RFC 6455 §4.1). */
    private static boolean offersSip(final HttpHeaders headers)
    {
        for (final String value : headers.getAll(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL))
        {
            for (final String token : value.split(","))
            {
                if (SIP.equals(token.trim()))
                {
                    return true;
                }
            }
        }
        return false;
    }

    private void refuse(final ChannelHandlerContext ctx, final HttpResponseStatus status, final int slot,
        final String reason)
    {
        counters.increment(slot);
        ctx.writeAndFlush(answer(status, reason)).addListener(ChannelFutureListener.CLOSE);
    }

    private static FullHttpResponse answer(final HttpResponseStatus status, final String reason)
    {
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
            Unpooled.copiedBuffer(reason + "\r\n", StandardCharsets.UTF_8));
        response.headers()
            .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
            .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
            .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        // Before the upgrade (a TLS or HTTP decoding error): this connection only.
        counters.increment(WsCounters.BAD_HANDSHAKE);
        ctx.close();
    }

    /** Netty's version-13 handshaker, used for its answer only: the pipeline is rearranged by {@link WsHandshake}. */
    private static final class SipHandshaker extends WebSocketServerHandshaker13
    {
        SipHandshaker(final String uri, final int maxFrameBytes)
        {
            super(uri, SIP, WebSocketDecoderConfig.newBuilder().maxFramePayloadLength(maxFrameBytes).build());
        }

        FullHttpResponse response(final FullHttpRequest request)
        {
            return newHandshakeResponse(request, null);
        }
    }
}
