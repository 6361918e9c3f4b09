package io.sipline.sip.dialog;

import static io.sipline.sip.dialog.DialogMessages.ALICE_TAG;
import static io.sipline.sip.dialog.DialogMessages.CALL_ID;
import static io.sipline.sip.dialog.DialogMessages.OUR_CALL_ID;
import static io.sipline.sip.dialog.DialogMessages.OUR_TAG;
import static io.sipline.sip.dialog.DialogMessages.inviteResponse;
import static io.sipline.sip.dialog.DialogMessages.inviteToBob;
import static io.sipline.sip.dialog.DialogMessages.ourInvite;
import static io.sipline.sip.dialog.DialogMessages.parse;
import static io.sipline.sip.dialog.DialogMessages.responseToUs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.NameAddrFlyweight;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMethod;
import io.sipline.test.AllocationMeter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** §12.2.1.1 and §13.2.2.4: requests written from dialog state, parsed back to check them. */
class DialogRequestWriterTest
{
    private final DialogLayer layer = new DialogLayer(new DialogPool(8, 0), new DialogTable(8), DialogListener.NONE);
    private final DialogRequestWriter writer = new DialogRequestWriter();
    private final SipMessageBuilder builder = new SipMessageBuilder();
    private final ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(2048);

    @AfterEach
    void tearDown()
    {
        out.release();
    }

    private Dialog uacDialog(final String... recordRoutes)
    {
        return layer.onUacResponse(parse(ourInvite()),
            parse(responseToUs(200, "OK", "INVITE", 1, "a6c85cf", "<sip:bob@192.0.2.4;transport=udp>", recordRoutes)),
            false);
    }

    private SipMessage write(final Dialog d, final SipMethod method, final long branch)
    {
        out.clear();
        writer.writeRequest(d, method, out, builder, "UDP", "pc33.atlanta.example.com", 5060, branch);
        return parse(out);
    }

    private static String header(final SipMessage m, final HeaderName name, final int n)
    {
        int i = m.firstHeader(name);
        for (int k = 0; k < n; k++)
        {
            i = m.nextHeader(name, i);
        }
        return i < 0 ? null : m.headerValue(i);
    }

    @Test
    void shouldWriteByeWithLooseRouting()
    {
        final Dialog d = uacDialog("<sip:p2.example.com;lr>", "<sip:p1.example.com;lr>");
        final SipMessage bye = write(d, SipMethod.BYE, 0x1234);

        assertEquals(SipMethod.BYE, bye.method());
        assertEquals("sip:bob@192.0.2.4;transport=udp", bye.requestUri(), "loose: Request-URI is the remote target");
        assertEquals(2, bye.headerCount(HeaderName.ROUTE));
        assertEquals("<sip:p1.example.com;lr>", header(bye, HeaderName.ROUTE, 0));
        assertEquals("<sip:p2.example.com;lr>", header(bye, HeaderName.ROUTE, 1));
        assertEquals("Bob <sip:bob@biloxi.example.com>;tag=a6c85cf", header(bye, HeaderName.TO, 0));
        assertEquals("a6c85cf", bye.toTag());
        assertEquals(OUR_TAG, bye.fromTag());
        assertEquals("Alice <sip:alice@atlanta.example.com>;tag=" + OUR_TAG, header(bye, HeaderName.FROM, 0));
        assertEquals(OUR_CALL_ID, bye.callId());
        assertEquals(2, bye.cseqNumber(), "next after the INVITE's 1");
        assertEquals(SipMethod.BYE, bye.cseqMethod());
        assertEquals(70, bye.maxForwards());
        assertEquals("z9hG4bK0000000000001234", bye.topViaBranch());
        assertEquals(-1, bye.firstHeader(HeaderName.CONTACT), "BYE is not a target refresh");
        assertEquals(0, bye.contentLength());
    }

    @Test
    void shouldWriteRequestWithStrictFirstHop()
    {
        // reversed: p1 (no lr, an RFC 2543 strict router) is the first hop
        final Dialog d = uacDialog("<sip:p2.example.com;lr>", "<sip:p1.example.com?X-Hdr=1>");
        assertTrue(d.isStrictRouting());
        final SipMessage info = write(d, SipMethod.INFO, 7);

        // §12.2.1.1: the first route is the Request-URI (URI headers stripped); the rest, then the remote target
        assertEquals("sip:p1.example.com", info.requestUri());
        assertEquals(2, info.headerCount(HeaderName.ROUTE));
        assertEquals("<sip:p2.example.com;lr>", header(info, HeaderName.ROUTE, 0));
        assertEquals("<sip:bob@192.0.2.4;transport=udp>", header(info, HeaderName.ROUTE, 1));
    }

    @Test
    void shouldWriteStrictRoutingWithSingleRoute()
    {
        final Dialog d = uacDialog("<sip:strict.example.com>");
        final SipMessage bye = write(d, SipMethod.BYE, 8);
        assertEquals("sip:strict.example.com", bye.requestUri());
        assertEquals(1, bye.headerCount(HeaderName.ROUTE));
        assertEquals("<sip:bob@192.0.2.4;transport=udp>", header(bye, HeaderName.ROUTE, 0));
    }

    @Test
    void shouldWriteNoRouteWithoutRouteSet()
    {
        final SipMessage bye = write(uacDialog(), SipMethod.BYE, 9);
        assertEquals("sip:bob@192.0.2.4;transport=udp", bye.requestUri());
        assertEquals(-1, bye.firstHeader(HeaderName.ROUTE));
    }

    @Test
    void shouldReuseInviteCSeqForAckAndCancel()
    {
        final Dialog d = uacDialog("<sip:p1.example.com;lr>");

        // §13.2.2.4: the ACK for the 2xx carries the INVITE's number, method ACK, and the route set
        final SipMessage ack = write(d, SipMethod.ACK, 10);
        assertEquals(SipMethod.ACK, ack.method());
        assertEquals(1, ack.cseqNumber());
        assertEquals(SipMethod.ACK, ack.cseqMethod());
        assertEquals("<sip:p1.example.com;lr>", header(ack, HeaderName.ROUTE, 0));
        assertEquals("sip:bob@192.0.2.4;transport=udp", ack.requestUri());

        // a re-INVITE takes the next number and carries our Contact; its ACK and CANCEL reuse that number
        final SipMessage reInvite = write(d, SipMethod.INVITE, 11);
        assertEquals(2, reInvite.cseqNumber());
        assertEquals("<sip:alice@pc33.atlanta.example.com;transport=udp>", header(reInvite, HeaderName.CONTACT, 0));
        assertEquals(2, write(d, SipMethod.CANCEL, 11).cseqNumber());
        out.clear();
        writer.writeAck(d, out, builder, "UDP", "pc33.atlanta.example.com", 5060, 12);
        assertEquals(2, parse(out).cseqNumber());
        assertEquals(3, write(d, SipMethod.BYE, 13).cseqNumber());
        assertEquals(3, d.localCSeq());
    }

    @Test
    void shouldWriteUasRequestsFromInitialLocalCSeqAndSwappedAddresses()
    {
        final SipMessage invite = parse(inviteToBob("sip:bob@biloxi.example.com", CALL_ID, ALICE_TAG, 314159,
            "<sip:p2.example.com;lr>", "<sip:p1.example.com;lr>"));
        final Dialog d = layer.createUas(invite, "bobtag", 200, false);
        d.localContact("<sip:bob@192.0.2.4>");
        assertThrows(IllegalStateException.class, () -> writer.writeAck(d, out, builder, "UDP", "h", 0, 1),
            "the UAS sent no INVITE yet");
        out.clear();

        final SipMessage bye = write(d, SipMethod.BYE, 14);
        // §12.2.1.1: local CSeq was empty, so an initial value is chosen
        assertEquals(1, bye.cseqNumber());
        assertEquals("sip:alice@pc33.atlanta.example.com", bye.requestUri());
        assertEquals("<sip:p2.example.com;lr>", header(bye, HeaderName.ROUTE, 0), "UAS route set in order");
        assertEquals("<sip:p1.example.com;lr>", header(bye, HeaderName.ROUTE, 1));
        assertEquals("\"Alice\" <sip:alice@atlanta.example.com>;tag=" + ALICE_TAG, header(bye, HeaderName.TO, 0));
        assertEquals("Bob <sip:bob@biloxi.example.com>;tag=bobtag", header(bye, HeaderName.FROM, 0));
        assertEquals(314159, d.remoteCSeq(), "remote CSeq untouched by what we send");

        final SipMessage update = write(d, SipMethod.UPDATE, 15);
        assertEquals(2, update.cseqNumber());
        final NameAddrFlyweight contact = new NameAddrFlyweight();
        assertTrue(update.address(update.firstHeader(HeaderName.CONTACT), contact));
        assertEquals("192.0.2.4", contact.uri().host());
    }

    @Test
    void shouldLetCallerAddHeadersAndBody()
    {
        final Dialog d = uacDialog();
        final byte[] sdp = "v=0\r\n".getBytes(StandardCharsets.US_ASCII);
        out.clear();
        writer.startRequest(d, "INFO", out, builder, "TCP", "h.example.com", 0, 16)
            .header(HeaderName.CONTENT_TYPE, "application/sdp")
            .end(sdp, 0, sdp.length);
        final SipMessage info = parse(out);
        assertEquals(SipMethod.INFO, info.method());
        assertEquals("application/sdp", header(info, HeaderName.CONTENT_TYPE, 0));
        assertEquals(5, info.bodyLength());
    }

    @Test
    void shouldRefuseTerminatedDialog()
    {
        final Dialog d = uacDialog();
        layer.terminate(d, DialogEndReason.LOCAL);
        assertThrows(IllegalStateException.class, () -> writer.writeRequest(d, SipMethod.BYE, out, builder, "UDP",
            "h", 0, 1));
    }

    @Test
    void shouldWriteInDialogRequestWithoutAllocating()
    {
        final Dialog d = uacDialog("<sip:p2.example.com;lr>", "<sip:p1.example.com;lr>");
        // The paranoid leak detector wraps pooled buffers and records a stack trace on every access; measure the
        // pooled direct buffer under the wrapper, which is what production writes into (released through out).
        final ByteBuf raw = null == out.unwrap() ? out : out.unwrap();
        final long[] sink = {0};
        // The least of up to five attempts: a one-off deoptimisation is not charged to the writer.
        final long allocated = AllocationMeter.leastBytes(
            () -> writeTimes(d, raw, 20_000, sink), () -> writeTimes(d, raw, 10_000, sink), 5, 0);
        assertTrue(sink[0] > 0);
        assertEquals(0, allocated, "bytes allocated writing 10,000 in-dialog requests");
    }

    private void writeTimes(final Dialog d, final ByteBuf raw, final int times, final long[] sink)
    {
        for (int i = 0; i < times; i++)
        {
            raw.clear();
            sink[0] += writer.writeRequest(d, SipMethod.INFO, raw, builder, "UDP", "pc33.atlanta.example.com", 5060, i);
        }
    }
}
