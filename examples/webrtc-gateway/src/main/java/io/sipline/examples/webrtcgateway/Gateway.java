package io.sipline.examples.webrtcgateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ListIterator;

import javax.servlet.ServletException;
import javax.servlet.sip.Address;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletMessage;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.TimerService;
import javax.servlet.sip.URI;

import io.sipline.media.service.MediaAnchor;
import io.sipline.media.service.MediaProfile;
import io.sipline.media.service.MediaService;

/**
 * The gateway's SIP servlet, a B2BUA (JSR 289 §4.1.3) whose media goes through the container's media service:
 * <ul>
 *   <li>REGISTER from a browser binds its user name to its Contact in {@link Browsers} (RFC 3261 §10.3, one binding
 *       per user, {@code Expires} capped at {@code max-expires});</li>
 *   <li>an initial INVITE is anchored ({@link MediaService#anchor}) from its SDP offer: toward a registered browser
 *       the other leg gets the WebRTC profile, toward anyone else the {@code phone-profile} (plain {@code RTP/AVP}
 *       by default); the callee is the registered browser, else the Request-URI's user at the {@code gateway}
 *       address when that context parameter is set, else the Request-URI itself. The callee's INVITE carries the
 *       anchor's offer;</li>
 *   <li>provisional responses are relayed without a body; the callee's 2xx is acknowledged at once, its answer given
 *       to the anchor and the anchor's answer sent to the caller in a 2xx; a final failure is relayed with its
 *       status;</li>
 *   <li>a re-INVITE from either leg, with an offer or without, is relayed to the other through the anchor
 *       ({@link Reinvite}): hold and resume, a new address or key; refused by the other leg, the previous media
 *       stays;</li>
 *   <li>BYE from either leg is answered and sent to the other, CANCEL is passed on, and either frees the anchor;
 *       so does a failed DTLS-SRTP handshake or silent media ({@link Call}), with a BYE to both legs.</li>
 * </ul>
 * Failures get a clear response with a {@code Warning} (RFC 3261 §20.43): no media service 503, an INVITE without
 * an SDP offer or an offer that cannot be anchored 488, no ports left 503, a callee's answer that does not fit
 * 502.
 * <p>
 * Threading: the container calls it for one call at a time, on that call's thread.
 */
public final class Gateway extends SipServlet
{
    private static final long serialVersionUID = 1L;
    private static final String SDP = "application/sdp";
    private static final int DEFAULT_EXPIRES = 600;

    private transient SipFactory factory;
    private transient TimerService timers;
    private transient Browsers browsers;
    private transient SipURI gateway;
    private transient MediaProfile phoneProfile;
    private boolean endOnMediaTimeout;
    private int maxExpires;

    @Override
    public void init() throws ServletException
    {
        factory = (SipFactory)getServletContext().getAttribute(SIP_FACTORY);
        timers = (TimerService)getServletContext().getAttribute(TIMER_SERVICE);
        browsers = new Browsers();
        getServletContext().setAttribute(Browsers.ATTRIBUTE, browsers);
        final String address = param("gateway", null);
        try
        {
            gateway = null == address ? null : (SipURI)factory.createURI(address);
        }
        catch (final ServletParseException | ClassCastException e)
        {
            throw new ServletException("the context parameter 'gateway' is not a SIP URI: " + address, e);
        }
        final String profile = param("phone-profile", "RTP_AVP");
        try
        {
            phoneProfile = MediaProfile.valueOf(profile);
        }
        catch (final IllegalArgumentException e)
        {
            throw new ServletException("the context parameter 'phone-profile' is none of RTP_AVP, RTP_SAVP, WEBRTC: " +
                profile, e);
        }
        endOnMediaTimeout = Boolean.parseBoolean(param("end-on-media-timeout", "true"));
        maxExpires = Integer.parseInt(param("max-expires", "3600"));
    }

    private String param(final String name, final String otherwise)
    {
        final String v = getServletContext().getInitParameter(name);
        return null == v || v.isBlank() ? otherwise : v.strip();
    }

    @Override
    protected void doRegister(final SipServletRequest register) throws ServletException, IOException
    {
        final URI to = register.getTo().getURI();
        final String user = to instanceof SipURI sip ? sip.getUser() : null;
        if (null == user)
        {
            reject(register, SipServletResponse.SC_BAD_REQUEST, "the To header has no user part");
            return;
        }
        final ListIterator<Address> contacts = register.getAddressHeaders("Contact");
        if (!contacts.hasNext())
        {
            final SipServletResponse ok = register.createResponse(SipServletResponse.SC_OK);
            final URI bound = browsers.lookup(user, System.currentTimeMillis());
            if (null != bound)
            {
                ok.addHeader("Contact", "<" + bound + ">");
            }
            ok.send();
            return;
        }
        final Address contact = contacts.next();
        final int asked = contact.isWildcard() ? 0 : contact.getExpires() >= 0 ? contact.getExpires()
            : register.getExpires() >= 0 ? register.getExpires() : DEFAULT_EXPIRES;
        final int granted = Math.min(asked, maxExpires);
        final SipServletResponse ok = register.createResponse(SipServletResponse.SC_OK);
        if (0 == granted)
        {
            browsers.unbind(user);
        }
        else
        {
            browsers.bind(user, contact.getURI(), granted, System.currentTimeMillis());
            ok.addHeader("Contact", "<" + contact.getURI() + ">;expires=" + granted);
        }
        ok.send();
    }

    @Override
    protected void doInvite(final SipServletRequest invite) throws ServletException, IOException
    {
        if (!invite.isInitial())
        {
            final Call call = Call.of(invite.getApplicationSession());
            if (null == call)
            {
                reject(invite, SipServletResponse.SC_CALL_LEG_DONE, "no call of this gateway on this dialog");
                return;
            }
            Reinvite.received(call, invite);
            return;
        }
        final MediaService media = (MediaService)getServletContext().getAttribute(MediaService.ATTRIBUTE);
        if (null == media)
        {
            reject(invite, SipServletResponse.SC_SERVICE_UNAVAILABLE,
                "the server has no media service (see sipline run --media-ports)");
            return;
        }
        final String offer = sdp(invite);
        if (null == offer)
        {
            reject(invite, SipServletResponse.SC_NOT_ACCEPTABLE_HERE, "an INVITE with an SDP offer is required");
            return;
        }
        final String user = invite.getRequestURI() instanceof SipURI sip ? sip.getUser() : null;
        final URI browser = browsers.lookup(user, System.currentTimeMillis());
        final MediaProfile profile = null != browser ? MediaProfile.WEBRTC : phoneProfile;
        final Call call = new Call(invite, timers, getServletContext(), endOnMediaTimeout);
        final MediaAnchor anchor;
        try
        {
            anchor = media.anchor(offer, profile, call);
        }
        catch (final IllegalStateException e)
        {
            reject(invite, SipServletResponse.SC_SERVICE_UNAVAILABLE, e.getMessage());
            return;
        }
        catch (final IllegalArgumentException e) // SdpException: the offer cannot be anchored
        {
            reject(invite, SipServletResponse.SC_NOT_ACCEPTABLE_HERE, e.getMessage());
            return;
        }
        try
        {
            final B2buaHelper helper = invite.getB2buaHelper();
            final SipServletRequest out = helper.createRequest(invite, true, null);
            out.setRequestURI(null != browser ? browser : target(invite));
            out.setContent(anchor.offer().getBytes(StandardCharsets.UTF_8), SDP);
            call.anchored(anchor, out);
            invite.getApplicationSession().setAttribute(Call.ATTRIBUTE, call);
            out.send();
        }
        catch (final IOException | RuntimeException e)
        {
            anchor.end();
            reject(invite, SipServletResponse.SC_SERVER_INTERNAL_ERROR, "the callee's INVITE failed: " + e);
        }
    }

    /** The callee of a call to a phone: the Request-URI's user at the gateway, or the Request-URI. */
    private URI target(final SipServletRequest invite)
    {
        final URI requested = invite.getRequestURI();
        if (null == gateway || !(requested instanceof SipURI sip))
        {
            return requested.clone();
        }
        final SipURI target = (SipURI)gateway.clone();
        target.setUser(sip.getUser());
        return target;
    }

    @Override
    protected void doAck(final SipServletRequest ack) throws IOException
    {
        final Call call = Call.of(ack.getApplicationSession());
        final Reinvite reinvite = null == call ? null : call.reinvite();
        if (null != reinvite && reinvite.isAckOf(ack))
        {
            reinvite.acknowledged(call, ack);
            return;
        }
        if (null != call && Call.State.ANSWERED == call.state())
        {
            call.state(Call.State.CONFIRMED);
        }
    }

    @Override
    protected void doBye(final SipServletRequest bye) throws IOException
    {
        bye.createResponse(SipServletResponse.SC_OK).send();
        final Call call = Call.of(bye.getApplicationSession());
        if (null != call)
        {
            call.endedBy(bye.getSession(), (call.isCallee(bye.getSession()) ? "the callee" : "the caller") +
                " hung up");
        }
    }

    @Override
    protected void doCancel(final SipServletRequest cancel)
    {
        // the container has answered the CANCEL and the caller's INVITE (487): cancel the callee's INVITE
        final Call call = Call.of(cancel.getApplicationSession());
        final Reinvite reinvite = null == call ? null : call.reinvite();
        if (null != reinvite && reinvite.isFrom(cancel))
        {
            reinvite.cancelled(); // only the re-INVITE ends; the call goes on
        }
        else if (null != call && Call.State.OFFERED == call.state())
        {
            call.end(SipServletResponse.SC_REQUEST_TERMINATED, "the caller cancelled");
        }
    }

    @Override
    protected void doResponse(final SipServletResponse response) throws IOException
    {
        final Call call = Call.of(response.getApplicationSession());
        final Reinvite reinvite = null == call ? null : call.reinvite();
        if (null != reinvite && "INVITE".equals(response.getMethod()) && reinvite.isResponseTo(response))
        {
            reinvite.responded(call, response);
            return;
        }
        if (null == call || !"INVITE".equals(response.getMethod()) || !call.isCallee(response.getSession()))
        {
            return; // the responses to our BYEs and CANCELs
        }
        final int status = response.getStatus();
        if (status < 200)
        {
            if (100 != status && call.callerUnanswered() && Call.State.OFFERED == call.state())
            {
                call.callerResponse(status).send();
            }
            return;
        }
        if (status >= 300)
        {
            final boolean relay = Call.State.OFFERED == call.state() && call.callerUnanswered();
            call.release();
            if (relay)
            {
                // a B2BUA cannot answer the callee's challenge for the caller
                final boolean challenge = SipServletResponse.SC_UNAUTHORIZED == status ||
                    SipServletResponse.SC_PROXY_AUTHENTICATION_REQUIRED == status;
                call.callerInvite().createResponse(challenge ? SipServletResponse.SC_FORBIDDEN : status,
                    challenge ? null : response.getReasonPhrase()).send();
            }
            return;
        }
        answered(call, response);
    }

    /** The callee's 2xx: ACK it, and answer the caller with the anchor's answer, or end the call. */
    private static void answered(final Call call, final SipServletResponse ok) throws IOException
    {
        if (call.isCalleeAnswered())
        {
            return; // a retransmitted 2xx: the container resends our ACK (RFC 3261 §13.2.2.4)
        }
        ok.createAck().send();
        call.calleeAnswered();
        if (Call.State.OFFERED != call.state())
        {
            ok.getSession().createRequest("BYE").send(); // the call ended meanwhile (the caller cancelled)
            return;
        }
        final String answer = sdp(ok);
        final String forCaller;
        try
        {
            if (null == answer)
            {
                throw new IllegalArgumentException("the callee's 2xx has no SDP answer");
            }
            forCaller = call.anchor().answer(answer);
        }
        catch (final IllegalArgumentException | IllegalStateException e)
        {
            call.end(SipServletResponse.SC_BAD_GATEWAY, "the callee's answer cannot be anchored: " + e.getMessage());
            return;
        }
        final SipServletResponse back = call.callerResponse(SipServletResponse.SC_OK);
        back.setContent(forCaller.getBytes(StandardCharsets.UTF_8), SDP);
        call.state(Call.State.ANSWERED);
        back.send();
    }

    /** The SDP body of a message, or null. */
    static String sdp(final SipServletMessage message) throws IOException
    {
        final byte[] body = message.getRawContent();
        final String type = message.getContentType();
        if (null == body || 0 == body.length || null == type || !type.toLowerCase().startsWith(SDP))
        {
            return null;
        }
        return new String(body, StandardCharsets.UTF_8);
    }

    /**
     * A final response with a {@code Warning: 399} (RFC 3261 §20.43) saying why, if the request is not answered yet.
     */
    static void reject(final SipServletRequest request, final int status, final String why) throws IOException
    {
        if (request.isCommitted())
        {
            return;
        }
        final SipServletResponse response = request.createResponse(status);
        response.setHeader("Warning", "399 " + request.getLocalAddr() + " \"" + quoted(why) + "\"");
        response.send();
    }

    /** {@code text} fit for a quoted-string: quotes and backslashes escaped, line breaks made spaces. */
    static String quoted(final String text)
    {
        final String t = null == text ? "" : text;
        return t.replace("\\", "\\\\").replace("\"", "\\\"").replace('\r', ' ').replace('\n', ' ');
    }
}
