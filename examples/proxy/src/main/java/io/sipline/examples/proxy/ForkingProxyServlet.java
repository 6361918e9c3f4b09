package io.sipline.examples.proxy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.servlet.ServletException;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.TooManyHopsException;
import javax.servlet.sip.URI;

/**
 * A record-routing proxy (JSR 289 chapter 10) that forks each initial request to the targets named by its init
 * parameters, written against the standard API only.
 * <dl>
 * <dt>{@code targets}</dt><dd>comma-separated SIP URIs the request is proxied to; empty: the request's own
 * Request-URI (a plain outbound proxy).</dd>
 * <dt>{@code parallel}</dt><dd>{@code true} (default) forks to every target at once; {@code false} tries them one
 * after the other.</dd>
 * <dt>{@code branch-timeout}</dt><dd>seconds each branch (or each step of a sequential search) may take before it
 * is cancelled; default 180.</dd>
 * <dt>{@code record-route}</dt><dd>{@code true} (default): the proxy stays in the dialog, so BYE and re-INVITE pass
 * through it.</dd>
 * <dt>{@code reject-header}</dt><dd>a request carrying this header is refused with 403 Forbidden.</dd>
 * </dl>
 * The container does the RFC 3261 §16 work: Max-Forwards (483), loop detection (482), the best response, CANCEL of
 * the losing branches, 3xx recursion, and proxying the subsequent requests of a record-routed dialog.
 */
public class ForkingProxyServlet extends SipServlet
{
    private static final long serialVersionUID = 1L;

    @SuppressWarnings("serial") // a servlet is never serialized here; set in init()
    private List<URI> targets;
    private boolean parallel;
    private int branchTimeout;
    private boolean recordRoute;
    private String rejectHeader;

    @Override
    public void init() throws ServletException
    {
        final SipFactory factory = (SipFactory)getServletContext().getAttribute(SIP_FACTORY);
        targets = new ArrayList<>();
        final String list = parameter("targets", "");
        for (final String t : list.split(","))
        {
            if (!t.isBlank())
            {
                try
                {
                    targets.add(factory.createURI(t.strip()));
                }
                catch (final ServletParseException e)
                {
                    throw new ServletException("init parameter targets: " + t.strip() + " is not a URI: "
                        + e.getMessage(), e);
                }
            }
        }
        parallel = Boolean.parseBoolean(parameter("parallel", "true"));
        recordRoute = Boolean.parseBoolean(parameter("record-route", "true"));
        rejectHeader = parameter("reject-header", "").strip();
        try
        {
            branchTimeout = Integer.parseInt(parameter("branch-timeout", "180").strip());
        }
        catch (final NumberFormatException e)
        {
            throw new ServletException("init parameter branch-timeout is not a number of seconds", e);
        }
        log("proxy: " + (targets.isEmpty() ? "to each request's Request-URI" : "forks to " + targets)
            + (parallel ? " in parallel" : " one after the other") + ", branch timeout " + branchTimeout + " s"
            + (recordRoute ? ", record-routing" : "")
            + (rejectHeader.isEmpty() ? "" : ", 403 for requests with " + rejectHeader));
    }

    private String parameter(final String name, final String otherwise)
    {
        final String v = getInitParameter(name);
        return null == v ? otherwise : v;
    }

    /** Every initial request but ACK and CANCEL (which the container proxies with their transactions). */
    @Override
    protected void doRequest(final SipServletRequest request) throws ServletException, IOException
    {
        final String method = request.getMethod().toUpperCase(Locale.ROOT);
        if (!request.isInitial() || "ACK".equals(method) || "CANCEL".equals(method))
        {
            super.doRequest(request); // subsequent requests: the container proxies them after the servlet
            return;
        }
        if (!rejectHeader.isEmpty() && null != request.getHeader(rejectHeader))
        {
            request.createResponse(SipServletResponse.SC_FORBIDDEN, "Forbidden (" + rejectHeader + ")").send();
            return;
        }
        final Proxy proxy;
        try
        {
            proxy = request.getProxy();
        }
        catch (final TooManyHopsException e)
        {
            request.createResponse(SipServletResponse.SC_TOO_MANY_HOPS).send();
            return;
        }
        proxy.setRecordRoute(recordRoute && isDialogCreating(method));
        proxy.setParallel(parallel);
        proxy.setProxyTimeout(branchTimeout);
        proxy.setSupervised(true);
        proxy.proxyTo(targets.isEmpty() ? List.of(request.getRequestURI()) : targets);
    }

    private static boolean isDialogCreating(final String method)
    {
        return "INVITE".equals(method) || "SUBSCRIBE".equals(method) || "REFER".equals(method);
    }

    /** The subsequent requests of a record-routed dialog: nothing to do, the container proxies them on. */
    @Override
    protected void doBye(final SipServletRequest request)
    {
        // nothing: after this returns the container sends the BYE on along the route set
    }

    @Override
    protected void doAck(final SipServletRequest request)
    {
        // nothing: the container sends the ACK of the 2xx on statelessly
    }

    @Override
    protected void doCancel(final SipServletRequest request)
    {
        // nothing: the container has answered the CANCEL and cancels the pending branches
    }

    @Override
    protected void doBranchResponse(final SipServletResponse response)
    {
        log("proxy: branch " + response.getProxyBranch().getRequest().getRequestURI() + " ended with "
            + response.getStatus() + " while others go on");
    }
}
