package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import javax.servlet.sip.Proxy;
import javax.servlet.sip.ProxyBranch;

import org.junit.jupiter.api.Test;

/**
 * What a response keeps in one field and one bit: the proxy and branch it came through (JSR 289 §10.2.4,
 * {@code getProxy}, {@code getProxyBranch}) and the RSeq of a reliable provisional response (RFC 3262 §7.1), read
 * from its RSeq header.
 */
class ResponseLinksTest
{
    private final FakeHost host = new FakeHost();

    private SipServletResponseImpl received(final String extra)
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        return SipServletResponseImpl.received(TestMessages.parse("SIP/2.0 183 Session Progress\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1\r\n"
            + "From: <sip:app@192.0.2.1>;tag=1\r\n"
            + "To: <sip:bob@biloxi.example>;tag=2\r\n"
            + "Call-ID: c1\r\n"
            + "CSeq: 1 INVITE\r\n"
            + extra
            + "Content-Length: 0\r\n\r\n"), invite, TestMessages.PEER, TestMessages.LOCAL);
    }

    /** A proxy of no behaviour: only its identity is compared. */
    private static Proxy proxy()
    {
        return (Proxy)java.lang.reflect.Proxy.newProxyInstance(ResponseLinksTest.class.getClassLoader(),
            new Class<?>[] {Proxy.class}, (p, m, a) -> null);
    }

    /** A branch whose {@code getProxy()} is {@code owner}. */
    private static ProxyBranch branchOf(final Proxy owner)
    {
        return (ProxyBranch)java.lang.reflect.Proxy.newProxyInstance(ResponseLinksTest.class.getClassLoader(),
            new Class<?>[] {ProxyBranch.class}, (p, m, a) -> "getProxy".equals(m.getName()) ? owner : null);
    }

    @Test
    void shouldAnswerTheProxyAndBranchItCameThrough()
    {
        final Proxy p = proxy();
        final ProxyBranch own = branchOf(p);
        final SipServletResponseImpl r = received("");
        assertNull(r.getProxy());
        assertNull(r.getProxyBranch());

        r.proxied(p, own, true);
        assertSame(p, r.getProxy());
        assertSame(own, r.getProxyBranch());

        r.proxied(p, null, false); // a response of the proxy without a branch (a 408 it made)
        assertSame(p, r.getProxy());
        assertNull(r.getProxyBranch());

        final ProxyBranch other = branchOf(proxy()); // not p's: both are kept as given
        r.proxied(p, other, false);
        assertSame(p, r.getProxy());
        assertSame(other, r.getProxyBranch());
    }

    @Test
    void shouldReadTheRseqOfAReliableProvisionalResponseFromItsHeader()
    {
        final SipServletResponseImpl reliable = received("Require: 100rel\r\nRSeq: 4294967295\r\n");
        assertEquals(0, reliable.rseq(), "not reliable before the container checked it");
        reliable.markReliable(ReliableProvisionals.parseRseq(reliable.getHeader("RSeq")));
        assertEquals(4_294_967_295L, reliable.rseq(), "RFC 3262 §7.1: up to 2**32-1");
        reliable.markReliable(0);
        assertEquals(0, reliable.rseq());

        final SipServletResponseImpl unreliable = received("");
        assertEquals(0, unreliable.rseq());
    }
}
