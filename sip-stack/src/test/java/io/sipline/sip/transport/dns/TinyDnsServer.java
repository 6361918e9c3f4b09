package io.sipline.sip.transport.dns;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsSection;

/**
 * An authoritative DNS server for tests, on loopback UDP with Netty's DNS codecs: answers each question from a table
 * of records the test fills (NAPTR, SRV, A, AAAA as raw RDATA, uncompressed), with an SOA in the authority section
 * of every empty answer (RFC 2308 negative caching), and counts the questions it got per (name, type). No internet.
 * Owned by the test; {@link #close()} stops its loop.
 */
public final class TinyDnsServer implements AutoCloseable
{
    /** The negative TTL the SOA of an empty answer carries (its minimum and its own TTL). */
    public static final int NEGATIVE_TTL = 120;

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Map<String, List<Rr>> records = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();
    private final Channel channel;

    public TinyDnsServer() throws InterruptedException
    {
        channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
            .handler(new ChannelInitializer<DatagramChannel>()
            {
                @Override
                protected void initChannel(final DatagramChannel ch)
                {
                    ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(),
                        new Answerer());
                }
            })
            .bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0)).sync().channel();
    }

    public InetSocketAddress address()
    {
        return (InetSocketAddress)channel.localAddress();
    }

    /** How many times (name, type) was asked. */
    public int asked(final String name, final DnsRecordType type)
    {
        final AtomicInteger n = asked.get(key(name, type.intValue()));
        return null == n ? 0 : n.get();
    }

    public int askedTotal()
    {
        int n = 0;
        for (final AtomicInteger a : asked.values())
        {
            n += a.get();
        }
        return n;
    }

    public void a(final String name, final long ttl, final String address)
    {
        add(name, DnsRecordType.A, ttl, InetAddress.ofLiteral(address).getAddress());
    }

    public void aaaa(final String name, final long ttl, final String address)
    {
        add(name, DnsRecordType.AAAA, ttl, InetAddress.ofLiteral(address).getAddress());
    }

    public void srv(final String name, final long ttl, final int priority, final int weight, final int port,
        final String target)
    {
        final byte[] t = name(target);
        final ByteBuffer b = ByteBuffer.allocate(6 + t.length);
        b.putShort((short)priority).putShort((short)weight).putShort((short)port).put(t);
        add(name, DnsRecordType.SRV, ttl, b.array());
    }

    public void naptr(final String name, final long ttl, final int order, final int preference, final String service,
        final String replacement)
    {
        final byte[] r = name(replacement);
        final byte[] s = service.getBytes(StandardCharsets.US_ASCII);
        final ByteBuffer b = ByteBuffer.allocate(4 + 2 + 1 + s.length + 1 + r.length);
        b.putShort((short)order).putShort((short)preference).put((byte)1).put((byte)'S').put((byte)s.length).put(s)
            .put((byte)0).put(r);
        add(name, DnsRecordType.NAPTR, ttl, b.array());
    }

    private void add(final String name, final DnsRecordType type, final long ttl, final byte[] rdata)
    {
        records.computeIfAbsent(key(name, type.intValue()), k -> new ArrayList<>()).add(new Rr(ttl, rdata));
    }

    private static byte[] name(final String name)
    {
        final ByteBuffer b = ByteBuffer.allocate(name.length() + 2);
        for (final String label : name.split("\\."))
        {
            if (!label.isEmpty())
            {
                b.put((byte)label.length()).put(label.getBytes(StandardCharsets.US_ASCII));
            }
        }
        b.put((byte)0);
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    private static String key(final String name, final int type)
    {
        return type + " " + DnsCache.lower(name);
    }

    @Override
    public void close()
    {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private record Rr(long ttl, byte[] rdata)
    {
    }

    private final class Answerer extends SimpleChannelInboundHandler<DatagramDnsQuery>
    {
        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final DatagramDnsQuery query)
        {
            final DnsQuestion question = query.recordAt(DnsSection.QUESTION);
            final String k = key(question.name(), question.type().intValue());
            asked.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
            final DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
            response.setAuthoritativeAnswer(true).setRecursionAvailable(true);
            response.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(question.name(), question.type()));
            final List<Rr> answers = records.get(k);
            if (null == answers || answers.isEmpty())
            {
                // RFC 2308: NODATA with the zone's SOA (mname, rname, serial, refresh, retry, expire, minimum).
                final byte[] mname = name("ns.test");
                final byte[] rname = name("admin.test");
                final ByteBuffer soa = ByteBuffer.allocate(mname.length + rname.length + 20);
                soa.put(mname).put(rname).putInt(1).putInt(3600).putInt(600).putInt(86400).putInt(NEGATIVE_TTL);
                response.addRecord(DnsSection.AUTHORITY, new DefaultDnsRawRecord("test.", DnsRecordType.SOA,
                    NEGATIVE_TTL, Unpooled.wrappedBuffer(soa.array())));
            }
            else
            {
                for (final Rr rr : answers)
                {
                    response.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(question.name(), question.type(),
                        rr.ttl(), Unpooled.wrappedBuffer(rr.rdata())));
                }
            }
            ctx.writeAndFlush(response);
        }
    }
}
