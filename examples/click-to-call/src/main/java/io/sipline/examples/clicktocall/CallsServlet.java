package io.sipline.examples.clicktocall;

import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;

import javax.annotation.Resource;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipSessionsUtil;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.TimerService;

/**
 * The HTTP half of click-to-call, at {@code /calls} (web.xml):
 * <ul>
 * <li>{@code POST /calls} with the form parameters {@code from} and {@code to} (SIP URIs or name-addrs) starts a
 * third-party call: an application session, and an INVITE without an offer to {@code from} (RFC 3725 flow I; its
 * From is {@code to}, so that the first party's phone shows whom it will talk to). Answers 201 with the call as
 * JSON and its {@code Location}; 400 for a missing or malformed address.</li>
 * <li>{@code GET /calls} lists the calls as a JSON array, newest first; {@code GET /calls/ID} one call, or 404.</li>
 * <li>{@code DELETE /calls/ID} hangs a call up: a timer of no delay on its application session hands the hang-up to
 * {@link CallControl}, which runs on the call's thread, so that it never races the call's SIP events. Answers 202,
 * or 404 for a call that is over or unknown.</li>
 * </ul>
 * <p>
 * Threading: HTTP threads; the SIP objects it uses are the container's, safe to call from them.
 */
public final class CallsServlet extends HttpServlet
{
    private static final long serialVersionUID = 1L;
    private static final String JSON = "application/json";

    @Resource
    private transient SipFactory factory;
    @Resource
    private transient TimerService timers;
    @Resource
    private transient SipSessionsUtil sessions;
    private transient CallBook book;

    @Override
    public void init() throws ServletException
    {
        book = (CallBook)getServletContext().getAttribute(CallBook.ATTRIBUTE);
        if (null == book)
        {
            throw new ServletException("no " + CallBook.ATTRIBUTE + ": is " + CallControl.class.getName()
                + " a listener in sip.xml?");
        }
    }

    @Override
    protected void doGet(final HttpServletRequest request, final HttpServletResponse response) throws IOException
    {
        final String id = callId(request);
        if (null == id)
        {
            final List<Call> all = book.all();
            send(response, HttpServletResponse.SC_OK,
                all.stream().map(Call::toJson).collect(Collectors.joining(",\n", "[", "]")));
            return;
        }
        final Call call = book.get(id);
        if (null == call)
        {
            error(response, HttpServletResponse.SC_NOT_FOUND, "no call " + id);
            return;
        }
        send(response, HttpServletResponse.SC_OK, call.toJson());
    }

    @Override
    protected void doPost(final HttpServletRequest request, final HttpServletResponse response) throws IOException
    {
        if (null != callId(request))
        {
            response.setHeader("Allow", "GET, DELETE");
            error(response, HttpServletResponse.SC_METHOD_NOT_ALLOWED, "POST /calls starts a call");
            return;
        }
        final Address from;
        final Address to;
        try
        {
            from = party(request, "from");
            to = party(request, "to");
        }
        catch (final ServletParseException e)
        {
            error(response, HttpServletResponse.SC_BAD_REQUEST, e.getMessage());
            return;
        }
        final SipApplicationSession session = factory.createApplicationSession();
        session.setAttribute(Legs.FROM, from);
        session.setAttribute(Legs.TO, to);
        final SipServletRequest invite = factory.createRequest(session, "INVITE", to, from);
        invite.getSession().setAttribute(Legs.LEG, Legs.FIRST);
        invite.getSession().setAttribute(Legs.INVITE, invite);
        final Call call = Call.begin(session.getId(), from.getURI().toString(), to.getURI().toString());
        book.add(call); // before the INVITE leaves: its responses find the call
        invite.send();
        response.setHeader("Location", request.getContextPath() + request.getServletPath() + "/" + call.id());
        send(response, HttpServletResponse.SC_CREATED, call.toJson());
    }

    @Override
    protected void doDelete(final HttpServletRequest request, final HttpServletResponse response) throws IOException
    {
        final String id = callId(request);
        final Call call = null == id ? null : book.get(id);
        final SipApplicationSession session = null == call ? null : sessions.getApplicationSessionById(id);
        if (null == call || call.state().isFinal() || null == session || !session.isValid())
        {
            error(response, HttpServletResponse.SC_NOT_FOUND, "no call in progress " + id);
            return;
        }
        timers.createTimer(session, 0, false, CallControl.HANG_UP);
        send(response, HttpServletResponse.SC_ACCEPTED, call.toJson());
    }

    /** The call named by the path ({@code /calls/ID}), or null for {@code /calls} itself. */
    private static String callId(final HttpServletRequest request)
    {
        final String path = request.getPathInfo();
        return null == path || "/".equals(path) ? null : path.substring(1);
    }

    /** A party's address from a form parameter: a {@code sip:} or {@code sips:} URI, alone or in a name-addr. */
    private Address party(final HttpServletRequest request, final String name) throws ServletParseException
    {
        final String value = request.getParameter(name);
        if (null == value || value.isBlank())
        {
            throw new ServletParseException("the parameter '" + name + "' is required: a SIP URI of a party");
        }
        final Address address = factory.createAddress(value.strip());
        if (!(address.getURI() instanceof SipURI))
        {
            throw new ServletParseException("'" + name + "' is not a sip: or sips: URI: " + value);
        }
        return address;
    }

    private static void send(final HttpServletResponse response, final int status, final String json)
        throws IOException
    {
        response.setStatus(status);
        response.setContentType(JSON);
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(json);
        response.getWriter().write('\n');
    }

    private static void error(final HttpServletResponse response, final int status, final String message)
        throws IOException
    {
        send(response, status, "{\"error\":" + Call.quote(message) + "}");
    }
}
