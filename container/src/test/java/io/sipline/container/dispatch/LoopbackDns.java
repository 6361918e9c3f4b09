package io.sipline.container.dispatch;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DefaultDnsRecordEncoder;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsSection;

/**
 * A DNS zone for the container's next-hop tests: a loopback UDP server that answers A and SRV questions from what the
 * test put in, an empty answer (NODATA, no SOA) to anything else, and records every question it got as
 * {@code "TYPE name"}. Nothing reaches the internet.
 * <p>
 * Threading: its own event loop answers; the test fills and reads it from its thread. {@link #close()} stops the loop.
 */
final class LoopbackDns implements AutoCloseable
{
    private static final NameEncoder NAMES = new NameEncoder();

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    /** Answers by "TYPE name" (lower case, no trailing dot): RDATA of each record. */
    private final Map<String, List<byte[]>> zone = new ConcurrentHashMap<>();
    private final List<String> questions = new CopyOnWriteArrayList<>();
    private final Channel channel;

    LoopbackDns() throws InterruptedException
    {
        channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
            .handler(new io.netty.channel.ChannelInitializer<NioDatagramChannel>()
            {
                @Override
                protected void initChannel(final NioDatagramChannel ch)
                {
                    ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(), new Zone());
                }
            })
            .bind(new InetSocketAddress(TestApps.LOOPBACK, 0)).sync().channel();
    }

    InetSocketAddress address()
    {
        return (InetSocketAddress)channel.localAddress();
    }

    /** An A record. */
    LoopbackDns a(final String name, final String ipv4)
    {
        return put(DnsRecordType.A, name, InetAddress.ofLiteral(ipv4).getAddress());
    }

    /** An SRV record (RFC 2782: priority, weight, port, target). */
    LoopbackDns srv(final String name, final int priority, final int weight, final int port, final String target)
    {
        final byte[] t = wireName(target);
        return put(DnsRecordType.SRV, name, ByteBuffer.allocate(6 + t.length).putShort((short)priority)
            .putShort((short)weight).putShort((short)port).put(t).array());
    }

    /** Every question asked so far, as "TYPE name". */
    List<String> questions()
    {
        return List.copyOf(questions);
    }

    private LoopbackDns put(final DnsRecordType type, final String name, final byte[] rdata)
    {
        zone.computeIfAbsent(key(type, name), k -> new CopyOnWriteArrayList<>()).add(rdata);
        return this;
    }

    private static String key(final DnsRecordType type, final String name)
    {
        final String n = name.toLowerCase(Locale.ROOT);
        return type.name() + " " + (n.endsWith(".") ? n.substring(0, n.length() - 1) : n);
    }

    /** RFC 1035 §3.1 labels, uncompressed (as SRV targets are, RFC 2782), written by Netty's record encoder. */
    private static byte[] wireName(final String name)
    {
        final ByteBuf b = Unpooled.buffer(name.length() + 2);
        try
        {
            NAMES.encodeName(name, b);
            return ByteBufUtil.getBytes(b);
        }
        catch (final Exception e)
        {
            throw new IllegalArgumentException("not a DNS name: " + name, e);
        }
        finally
        {
            b.release();
        }
    }

    /** Opens {@link DefaultDnsRecordEncoder#encodeName} to the zone. */
    private static final class NameEncoder extends DefaultDnsRecordEncoder
    {
        @Override
        protected void encodeName(final String name, final ByteBuf buf) throws Exception
        {
            super.encodeName(name, buf);
        }
    }

    @Override
    public void close()
    {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Answers one question from the zone. */
    private final class Zone extends SimpleChannelInboundHandler<DatagramDnsQuery>
    {
        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final DatagramDnsQuery query)
        {
            final DnsQuestion q = query.recordAt(DnsSection.QUESTION);
            final String k = key(q.type(), q.name());
            questions.add(k);
            final DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
            response.setAuthoritativeAnswer(true).setRecursionAvailable(true);
            response.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(q.name(), q.type()));
            for (final byte[] rdata : zone.getOrDefault(k, List.of()))
            {
                response.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(q.name(), q.type(), 300,
                    Unpooled.wrappedBuffer(rdata)));
            }
            ctx.writeAndFlush(response);
        }
    }
}
