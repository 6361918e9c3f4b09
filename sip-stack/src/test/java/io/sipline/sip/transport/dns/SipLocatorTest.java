package io.sipline.sip.transport.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.codec.dns.DnsRecordType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RFC 3263 §4 location against a {@link TinyDnsServer} on loopback (no internet): NAPTR then SRV then A/AAAA in the
 * RFC's order; the fallbacks (no NAPTR: SRV per transport; no SRV: A with the default port; SIPS: TLS only); numeric
 * hosts without DNS; an explicit port or transport; SRV priority order; and the cache: nothing asked twice within a
 * TTL, the expired record (and only it) asked again once the test's clock passes its TTL, empty answers believed for
 * the SOA's negative TTL.
 */
class SipLocatorTest
{
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private EventLoopGroup group;
    private EventLoop loop;
    private TinyDnsServer dns;
    private SipLocator locator;

    @BeforeEach
    void start() throws Exception
    {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        loop = group.next();
        dns = new TinyDnsServer();
        locator = loop.submit(() -> new SipLocator(loop, false, List.of(dns.address()), 2_000, clock::get,
            new Random(7))).get(5, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception
    {
        loop.submit(locator::close).get(5, TimeUnit.SECONDS);
        dns.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void shouldFollowNaptrThenSrvThenAddressesAndCacheEachForItsTtl() throws Exception
    {
        dns.naptr("example.test", 300, 10, 10, "SIP+D2T", "_sip._tcp.example.test");
        dns.naptr("example.test", 300, 20, 10, "SIP+D2U", "_sip._udp.example.test");
        dns.naptr("example.test", 300, 5, 10, "SIP+D2W", "_sip._ws.example.test"); // WebSocket: not ours, skipped
        dns.srv("_sip._tcp.example.test", 300, 10, 0, 5070, "a.example.test");
        dns.srv("_sip._udp.example.test", 300, 10, 0, 5080, "b.example.test");
        dns.a("a.example.test", 60, "192.0.2.1");
        dns.aaaa("a.example.test", 60, "2001:db8::1");
        dns.a("b.example.test", 600, "192.0.2.2");

        final List<SipTarget> expected = List.of(target("TCP", "192.0.2.1", 5070), target("TCP", "2001:db8::1", 5070),
            target("UDP", "192.0.2.2", 5080));
        assertEquals(expected, locate("example.test", -1, null, false));
        final int asked = dns.askedTotal();
        assertEquals(1, dns.asked("example.test", DnsRecordType.NAPTR));

        assertEquals(expected, locate("EXAMPLE.test.", -1, null, false), "the same name, from the cache");
        assertEquals(asked, dns.askedTotal(), "nothing asked again within the TTLs");

        clock.addAndGet(TimeUnit.SECONDS.toNanos(61)); // past a.example.test's 60 s A/AAAA, within everything else
        assertEquals(expected, locate("example.test", -1, null, false));
        assertEquals(2, dns.asked("a.example.test", DnsRecordType.A), "the expired A record is asked again");
        assertEquals(2, dns.asked("a.example.test", DnsRecordType.AAAA));
        assertEquals(1, dns.asked("b.example.test", DnsRecordType.A), "600 s: still cached");
        assertEquals(1, dns.asked("example.test", DnsRecordType.NAPTR));
        assertEquals(1, dns.asked("b.example.test", DnsRecordType.AAAA), "an empty answer believed for the SOA TTL");
        clock.addAndGet(TimeUnit.SECONDS.toNanos(TinyDnsServer.NEGATIVE_TTL));
        locate("example.test", -1, null, false);
        assertEquals(2, dns.asked("b.example.test", DnsRecordType.AAAA), "and asked again after it");
    }

    @Test
    void shouldFallBackToSrvPerTransportThenToAddresses() throws Exception
    {
        // No NAPTR: SRV for UDP (none) and TCP (two priorities, the lower number first).
        dns.srv("_sip._tcp.srv.test", 300, 20, 0, 5090, "late.srv.test");
        dns.srv("_sip._tcp.srv.test", 300, 10, 0, 5091, "early.srv.test");
        dns.a("late.srv.test", 300, "192.0.2.20");
        dns.a("early.srv.test", 300, "192.0.2.10");
        assertEquals(List.of(target("TCP", "192.0.2.10", 5091), target("TCP", "192.0.2.20", 5090)),
            locate("srv.test", -1, null, false));

        // No NAPTR, no SRV: the host's addresses, default port; UDP for sip, TLS for sips (RFC 3263 §4.1, §4.2).
        dns.a("plain.test", 300, "192.0.2.30");
        assertEquals(List.of(target("UDP", "192.0.2.30", 5060)), locate("plain.test", -1, null, false));
        assertEquals(List.of(target("TLS", "192.0.2.30", 5061)), locate("plain.test", -1, null, true));
        assertEquals(1, dns.asked("_sips._tcp.plain.test", DnsRecordType.SRV), "sips asks for _sips._tcp only");
        assertEquals(0, dns.asked("_sip._udp.plain.test", DnsRecordType.NAPTR));

        // A transport without a port: SRV of that transport (none here) then the addresses.
        assertEquals(List.of(target("TCP", "192.0.2.30", 5060)), locate("plain.test", -1, "tcp", false));
        // A port: addresses only, no SRV.
        final int srvAsked = dns.asked("_sip._udp.plain.test", DnsRecordType.SRV);
        assertEquals(List.of(target("UDP", "192.0.2.30", 5099)), locate("plain.test", 5099, null, false));
        assertEquals(srvAsked, dns.asked("_sip._udp.plain.test", DnsRecordType.SRV));
        assertEquals(List.of(), locate("nowhere.test", -1, null, false), "nothing anywhere: empty");
    }

    @Test
    void shouldNotAskDnsForNumericHosts() throws Exception
    {
        assertEquals(List.of(target("UDP", "192.0.2.9", 5060)), locate("192.0.2.9", -1, null, false));
        assertEquals(List.of(target("TCP", "2001:db8::9", 5070)), locate("[2001:db8::9]", 5070, "TCP", false));
        assertEquals(List.of(target("TLS", "192.0.2.9", 5061)), locate("192.0.2.9", -1, null, true));
        assertEquals(0, dns.askedTotal());
        assertEquals(0, locator.queries());
    }

    @Test
    void shouldLocateTheMaddrOfAUriLikeAnyHost() throws Exception
    {
        // RFC 3263 §4: with maddr the target is the maddr, a host name located like any other (port given: A/AAAA).
        dns.a("proxy.maddr.test", 300, "192.0.2.40");
        dns.a("ignored.maddr.test", 300, "192.0.2.41");
        assertEquals(List.of(target("TCP", "192.0.2.40", 5070)),
            locate("sip:bob@ignored.maddr.test:5070;transport=tcp;maddr=proxy.maddr.test"));
        assertEquals(0, dns.asked("ignored.maddr.test", DnsRecordType.A), "the URI's host is not the target");
        // Without a port: the RFC's whole procedure on the maddr name (no NAPTR, no SRV: A, default port).
        assertEquals(List.of(target("UDP", "192.0.2.40", 5060)),
            locate("sip:bob@ignored.maddr.test;maddr=proxy.maddr.test"));
        // A numeric maddr needs no DNS; a sips URI defaults to TLS.
        final int asked = dns.askedTotal();
        assertEquals(List.of(target("TLS", "192.0.2.42", 5061)),
            locate("sips:bob@ignored.maddr.test;maddr=192.0.2.42"));
        assertEquals(asked, dns.askedTotal());
        // No maddr: the host.
        assertEquals(List.of(target("UDP", "192.0.2.41", 5080)), locate("sip:bob@ignored.maddr.test:5080"));
    }

    private List<SipTarget> locate(final String uri) throws Exception
    {
        final io.sipline.sip.message.SipUriFlyweight view = new io.sipline.sip.message.SipUriFlyweight();
        final byte[] b = uri.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        if (!view.wrap(b, 0, b.length))
        {
            throw new AssertionError(uri + ": " + view.errorReason());
        }
        final CompletableFuture<List<SipTarget>> done = new CompletableFuture<>();
        loop.execute(() -> locator.locate(view, done::complete));
        return done.get(10, TimeUnit.SECONDS);
    }

    private List<SipTarget> locate(final String host, final int port, final String transport, final boolean sips)
        throws Exception
    {
        final CompletableFuture<List<SipTarget>> done = new CompletableFuture<>();
        loop.execute(() -> locator.locate(host, port, transport, sips, done::complete));
        return done.get(10, TimeUnit.SECONDS);
    }

    private static SipTarget target(final String transport, final String address, final int port)
    {
        return new SipTarget(transport, new InetSocketAddress(InetAddress.ofLiteral(address), port));
    }
}
