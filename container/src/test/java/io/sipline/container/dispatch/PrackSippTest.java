package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import javax.servlet.ServletException;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletMessage;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.URI;

import org.junit.jupiter.api.Test;

/**
 * RFC 3262 end to end with sipp on loopback: a caller with {@code Supported: 100rel} ({@code sipp/prack-caller.xml})
 * reaches a callee that sends a reliable 183 and waits for its PRACK before answering ({@code sipp/prack-callee.xml}),
 * through the container as a B2BUA written against the standard API (the 183 relayed with {@code sendReliably},
 * the caller's PRACK relayed with {@code B2buaHelper.createRequest} on the callee leg, whose RAck the container
 * fills), and through a record-routing proxy (the PRACK is a subsequent request of the proxied dialog).
 */
class PrackSippTest
{
    private static final int CALLS = 10;

    /** A B2BUA that keeps provisional responses reliable on the caller leg when they were on the callee leg. */
    public static final class ReliableB2bua extends SipServlet
    {
        private static final long serialVersionUID = 1L;
        private static final String ANSWER = "answer";

        final transient AtomicInteger pracks = new AtomicInteger();
        private transient URI target;

        @Override
        public void init() throws ServletException
        {
            try
            {
                target = ((SipFactory)getServletContext().getAttribute(SIP_FACTORY))
                    .createURI(getServletContext().getInitParameter("target"));
            }
            catch (final javax.servlet.sip.ServletParseException e)
            {
                throw new ServletException(e);
            }
        }

        @Override
        protected void doInvite(final SipServletRequest req) throws ServletException, IOException
        {
            final SipServletRequest out = req.getB2buaHelper().createRequest(req, true, null);
            out.setRequestURI(target.clone());
            out.send();
        }

        @Override
        protected void doPrack(final SipServletRequest prack) throws IOException
        {
            pracks.incrementAndGet();
            final B2buaHelper helper = prack.getB2buaHelper();
            helper.createRequest(helper.getLinkedSession(prack.getSession()), prack, null).send();
        }

        @Override
        protected void doAck(final SipServletRequest ack) throws IOException
        {
            final SipSession callee = ack.getB2buaHelper().getLinkedSession(ack.getSession());
            final SipServletResponse answer = (SipServletResponse)callee.getAttribute(ANSWER);
            if (null != answer)
            {
                callee.removeAttribute(ANSWER);
                answer.createAck().send();
            }
        }

        @Override
        protected void doBye(final SipServletRequest bye) throws IOException
        {
            bye.createResponse(200).send();
            bye.getB2buaHelper().getLinkedSession(bye.getSession()).createRequest("BYE").send();
        }

        @Override
        protected void doProvisionalResponse(final SipServletResponse resp) throws ServletException, IOException
        {
            final SipServletRequest upstream = resp.getRequest().getB2buaHelper()
                .getLinkedSipServletRequest(resp.getRequest());
            final SipServletResponse back = resp.getRequest().getB2buaHelper()
                .createResponseToOriginalRequest(upstream.getSession(), resp.getStatus(), resp.getReasonPhrase());
            copyBody(resp, back);
            if (null != resp.getHeader("RSeq"))
            {
                back.sendReliably(); // the callee wants a PRACK: so do we, and the caller's one is relayed
            }
            else
            {
                back.send();
            }
        }

        @Override
        protected void doSuccessResponse(final SipServletResponse resp) throws IOException
        {
            if ("BYE".equals(resp.getMethod()))
            {
                return;
            }
            if ("INVITE".equals(resp.getMethod()))
            {
                resp.getSession().setAttribute(ANSWER, resp);
            }
            final B2buaHelper helper = resp.getRequest().getB2buaHelper();
            final SipServletRequest upstream = helper.getLinkedSipServletRequest(resp.getRequest());
            final SipServletResponse back = "INVITE".equals(resp.getMethod())
                ? helper.createResponseToOriginalRequest(upstream.getSession(), resp.getStatus(),
                    resp.getReasonPhrase())
                : upstream.createResponse(resp.getStatus(), resp.getReasonPhrase());
            copyBody(resp, back);
            back.send();
        }

        private static void copyBody(final SipServletMessage from, final SipServletMessage to) throws IOException
        {
            final byte[] body = from.getRawContent();
            if (null != body && body.length > 0)
            {
                to.setContent(body, from.getContentType());
            }
        }
    }

    /** A record-routing proxy to the target; counts the PRACKs it sees as subsequent requests. */
    public static final class RoutingProxy extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient AtomicInteger pracks = new AtomicInteger();
        /** Subsequent requests whose popped Route (JSR 289 §15.5) is not the Record-Route this proxy wrote. */
        final transient AtomicInteger wrongPoppedRoutes = new AtomicInteger();

        @Override
        protected void doRequest(final SipServletRequest req) throws ServletException, IOException
        {
            if ("PRACK".equals(req.getMethod()) && !req.isInitial())
            {
                pracks.incrementAndGet();
            }
            if (!req.isInitial() && (null == req.getPoppedRoute()
                || null == ((javax.servlet.sip.SipURI)req.getPoppedRoute().getURI()).getParameter("sipline-px")))
            {
                wrongPoppedRoutes.incrementAndGet();
            }
            if (req.isInitial())
            {
                final Proxy proxy = req.getProxy();
                proxy.setRecordRoute(true);
                proxy.proxyTo(((SipFactory)getServletContext().getAttribute(SIP_FACTORY))
                    .createURI(getServletContext().getInitParameter("target")));
            }
        }
    }

    @Test
    void shouldRelayAReliable183AndItsPrackThroughAB2bua() throws Exception
    {
        final ReliableB2bua b2bua = new ReliableB2bua();
        DispatchSippTest.relay("prack-b2bua", b2bua, "prack-caller.xml", "prack-callee.xml", CALLS);
        assertEquals(CALLS, b2bua.pracks.get(), "every caller PRACK reached doPrack");
    }

    @Test
    void shouldPassThePrackThroughARecordRoutingProxy() throws Exception
    {
        final RoutingProxy proxy = new RoutingProxy();
        DispatchSippTest.relay("prack-proxy", proxy, "prack-caller.xml", "prack-routed-callee.xml", CALLS);
        assertEquals(CALLS, proxy.pracks.get(), "every PRACK went through the proxied dialog");
        assertEquals(0, proxy.wrongPoppedRoutes.get(), "each subsequent request shows our Route as popped");
    }
}
