package io.sipline.container.factory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.SipServletMessage;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.TooManyHopsException;
import javax.servlet.sip.UAMode;

import io.sipline.container.api.MessageHeaders;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.ContainerShard;
import io.sipline.container.api.RunningApplication;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.message.HeaderName;

/**
 * The B2BUA helper of one application (JSR 289 §12): new legs copied from a received request (in a new SIP
 * session whose Call-ID comes from the same shard, so both legs are processed on one thread), subsequent requests on
 * the other leg, the links between sessions and between requests, responses to the original request, CANCEL of the
 * other leg, and the messages still pending.
 * <p>
 * One for all the application's sessions: it keeps no state of a call (the links and pending messages are the
 * sessions' and requests'), so a call costs no helper object. The sessions given to a method must be this
 * application's, and linked sessions must share an application session (JSR 289 §12); the original request of a
 * subsequent request is not checked against its session, so a request of any of the application's sessions relays.
 * <p>
 * Threading: its fields are final; each method runs on the shard of the sessions it is given (or on the
 * application's own thread, not concurrently with their shard), which the sessions' own methods require.
 */
public final class B2buaHelperImpl implements B2buaHelper
{
    private final SipFactoryImpl factory;
    private final RunningApplication application;

    public B2buaHelperImpl(final SipFactoryImpl factory, final RunningApplication application)
    {
        this.factory = factory;
        this.application = application;
    }

    @Override
    public SipServletRequest createRequest(final SipServletRequest origRequest)
    {
        try
        {
            return createRequest(origRequest, false, null);
        }
        catch (final TooManyHopsException e)
        {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** JSR 289 §12.2.1: a new leg like {@code origRequest}; linked to it (sessions and requests) when asked. */
    @Override
    public SipServletRequest createRequest(final SipServletRequest origRequest, final boolean linked,
        final Map<String, List<String>> headerMap) throws TooManyHopsException
    {
        final SipServletRequestImpl orig = SipFactoryImpl.check(origRequest);
        if (!orig.isInitial())
        {
            throw new IllegalArgumentException("createRequest(orig, linked, map) takes an initial request; use "
                + "createRequest(session, orig, map) for subsequent ones");
        }
        final SipServletRequestImpl request = factory.copyRequest(orig, false, headerMap, true);
        orig.sessionImpl().markB2bua();
        request.sessionImpl().markB2bua();
        if (linked)
        {
            link(orig.sessionImpl(), request.sessionImpl());
            orig.link(request);
        }
        return request;
    }

    /**
     * JSR 289 §12.2.2: a subsequent request of {@code origRequest}'s method in {@code session}'s dialog, with the
     * original's non-system headers and body, linked to it.
     */
    @Override
    public SipServletRequest createRequest(final SipSession session, final SipServletRequest origRequest,
        final Map<String, List<String>> headerMap)
    {
        final SipSessionImpl target = check(session);
        final SipServletRequestImpl orig = SipFactoryImpl.check(origRequest);
        orig.applyHeaderObjects();
        final SipServletRequestImpl request = target.createRelayed(orig.getMethod(), orig);
        final MessageHeaders oh = orig.headers();
        final MessageHeaders h = request.headers();
        for (int i = 0; i < oh.size(); i++)
        {
            if (!isSystemOrRewritten(oh.known(i), oh.name(i)) && h.find(oh.name(i), 0) < 0)
            {
                h.appendEntry(oh, i); // a received value stays a span of the shared bytes
            }
        }
        if (null != headerMap)
        {
            for (final Map.Entry<String, List<String>> e : headerMap.entrySet())
            {
                final HeaderName k = HeaderName.lookup(e.getKey());
                if (isSystemOrRewritten(k, e.getKey()))
                {
                    throw new IllegalArgumentException(e.getKey() + " is a system header");
                }
                h.remove(e.getKey());
                if (null != e.getValue())
                {
                    for (final String v : e.getValue())
                    {
                        h.add(e.getKey(), v);
                    }
                }
            }
        }
        request.shareBody(orig);
        orig.link(request);
        return request;
    }

    private static boolean isSystemOrRewritten(final HeaderName k, final String name)
    {
        return switch (k)
        {
            case VIA, ROUTE, RECORD_ROUTE, PATH, CONTACT, FROM, TO, CALL_ID, CSEQ, MAX_FORWARDS, CONTENT_LENGTH, RSEQ,
                RACK -> true;
            default -> false;
        };
    }

    /**
     * JSR 289 §12.3: a response to the request that created {@code session} (its UAS side).
     * <p>
     * With a UAC session derived for a forked dialog (JSR 289 §6.2.3.2: a 1xx or 2xx of another To tag came back on
     * the other leg), the response answers the initial request of the UAS session linked to that leg, in a dialog of
     * its own (a 2xx after the first cannot share its To tag): a UAS session derived from the linked one, made once
     * and linked both ways with the derived UAC session ({@link #getLinkedSession} then gives each the other), so
     * that the caller's ACK, BYE and other requests of that dialog go to the matching callee dialog. A 2xx so relayed
     * is ACKed by the application when the caller's ACK comes, as the first one. Given the original UAS session
     * itself after its INVITE was answered 2xx, another 2xx also gets a derived UAS session of its own, unlinked
     * (the application links it with {@link #linkSipSessions}).
     *
     * @throws IllegalStateException when the response is inconsistent with one already sent (a 2xx after an error
     *                               response), or the session was not created by a received request and is not a
     *                               derived UAC session.
     */
    @Override
    public SipServletResponse createResponseToOriginalRequest(final SipSession session, final int status,
        final String reasonPhrase)
    {
        final SipSessionImpl s = check(session);
        if (s.isDerived() && s.isUac() && status < 300)
        {
            return forkedResponse(s, status, reasonPhrase);
        }
        final SipServletRequestImpl original = s.original();
        if (null == original || !original.isIncoming())
        {
            throw new IllegalStateException("the session was not created by a received request");
        }
        final SipServletResponseImpl first = original.finalResponse();
        if (null != first && first.getStatus() < 300 && status >= 200 && status < 300
            && "INVITE".equals(original.getMethod()))
        {
            // another success response to an answered INVITE (a downstream fork relayed with the original session, as
            // some applications do): a dialog of its own in a derived UAS session, which the application may link
            return SipServletResponseImpl.toRequest(original, s.deriveUas(), status, reasonPhrase);
        }
        return original.createResponse(status, reasonPhrase);
    }

    /**
     * The response to the upstream initial request in the UAS session paired with the derived UAC session: the one
     * linked to it already (an earlier relayed response of its dialog), else a new one derived from the UAS session
     * linked to the session it was derived from.
     */
    private static SipServletResponse forkedResponse(final SipSessionImpl uac, final int status, final String reason)
    {
        SipSessionImpl uas = uac.linked();
        if (null == uas)
        {
            final SipSessionImpl upstream = uac.head().linked();
            if (null == upstream || upstream.isUac() || !upstream.isValid())
            {
                throw new IllegalStateException("the forked session's leg is linked to no UAS session to answer");
            }
            uas = upstream.deriveUas();
            link(uac, uas);
        }
        final SipServletRequestImpl original = uas.original();
        if (null == original || !original.isIncoming())
        {
            throw new IllegalStateException("the linked session has no received initial request");
        }
        final SipServletResponseImpl first = original.finalResponse();
        if (null != first && first.getStatus() >= 300)
        {
            throw new IllegalStateException("the original request was answered " + first.getStatus());
        }
        if (status >= 200)
        {
            uac.relayed();
        }
        return SipServletResponseImpl.toRequest(original, uas, status, reason);
    }

    @Override
    public SipSession getLinkedSession(final SipSession session)
    {
        final SipSessionImpl s = check(session);
        final SipSessionImpl other = s.linked();
        return null != other && other.isValid() ? other : null;
    }

    @Override
    public SipServletRequest getLinkedSipServletRequest(final SipServletRequest req)
    {
        return SipFactoryImpl.check(req).linked();
    }

    /**
     * JSR 289 §12.4: in UAS mode the received requests still waiting for a final response; in UAC mode the requests
     * sent without a final response yet, and the received 2xx responses to INVITE not yet acknowledged.
     */
    @Override
    public List<SipServletMessage> getPendingMessages(final SipSession session, final UAMode mode)
    {
        final SipSessionImpl s = check(session);
        // The session's requests in progress change on its shard as messages arrive: read them there.
        final ContainerShard host = s.appSession().host();
        return host.onShardThread() ? pending(s, mode) : host.callAndWait(() -> pending(s, mode));
    }

    /**
     * The pending messages as an unmodifiable list made for their number (JSR 289 asks for a list, not a modifiable
     * one): a call has one or two, which {@link List#of} holds in one small object instead of a list and its array.
     */
    private static List<SipServletMessage> pending(final SipSessionImpl s, final UAMode mode)
    {
        SipServletMessage first = null;
        SipServletMessage second = null;
        int n = 0;
        for (int i = 0; ; i++) // by index, on the session's own list: no snapshot, no iterator
        {
            final SipServletRequestImpl r = s.ongoing(i);
            if (null == r)
            {
                break;
            }
            if (isPending(r, mode))
            {
                first = 0 == n ? r : first;
                second = 1 == n ? r : second;
                n++;
            }
        }
        final SipServletResponseImpl ok = UAMode.UAC == mode ? s.unacknowledged2xx() : null; // last: after them
        if (null != ok)
        {
            first = 0 == n ? ok : first;
            second = 1 == n ? ok : second;
            n++;
        }
        if (n > 2)
        {
            return allPending(s, mode, ok);
        }
        return 0 == n ? List.of() : 1 == n ? List.of(first) : List.of(first, second);
    }

    /** {@link #pending} of a session with more than two: in a list made for them. */
    private static List<SipServletMessage> allPending(final SipSessionImpl s, final UAMode mode,
        final SipServletResponseImpl ok)
    {
        final List<SipServletMessage> all = new ArrayList<>();
        for (int i = 0; null != s.ongoing(i); i++)
        {
            if (isPending(s.ongoing(i), mode))
            {
                all.add(s.ongoing(i));
            }
        }
        if (null != ok)
        {
            all.add(ok);
        }
        return List.copyOf(all);
    }

    /** Pending for {@code mode}: for the UAS a received request not yet answered, for the UAC a request it sent. */
    private static boolean isPending(final SipServletRequestImpl r, final UAMode mode)
    {
        return UAMode.UAS == mode ? r.isIncoming() && !r.isCommitted() : !r.isIncoming();
    }

    @Override
    public void linkSipSessions(final SipSession session1, final SipSession session2)
    {
        final SipSessionImpl a = check(session1);
        final SipSessionImpl b = check(session2);
        if (a.appSession() != b.appSession())
        {
            throw new IllegalArgumentException("the sessions belong to different application sessions");
        }
        if (SipSession.State.TERMINATED == a.getState() || SipSession.State.TERMINATED == b.getState())
        {
            throw new IllegalArgumentException("a terminated session cannot be linked");
        }
        if ((null != a.linked() && a.linked() != b) || (null != b.linked() && b.linked() != a))
        {
            throw new IllegalArgumentException("a session is already linked to another one");
        }
        link(a, b);
    }

    @Override
    public void unlinkSipSessions(final SipSession session)
    {
        final SipSessionImpl s = check(session);
        final SipSessionImpl other = s.linked();
        if (null == other)
        {
            throw new IllegalArgumentException("the session is not linked");
        }
        other.linked(null);
        s.linked(null);
    }

    /** JSR 289 §12.5: a CANCEL of the INVITE this UAC session sent (the other leg). */
    @Override
    public SipServletRequest createCancel(final SipSession session)
    {
        final SipSessionImpl s = check(session);
        final SipServletRequestImpl original = s.original();
        if (null == original || original.isIncoming())
        {
            throw new IllegalStateException("the session did not send an initial request");
        }
        return original.createCancel();
    }

    private static void link(final SipSessionImpl a, final SipSessionImpl b)
    {
        a.linked(b);
        b.linked(a);
    }

    private SipSessionImpl check(final SipSession session)
    {
        if (!(session instanceof SipSessionImpl s) || !s.isValid())
        {
            throw new IllegalArgumentException("not a valid session of this container");
        }
        if (s.appSession().application() != application)
        {
            throw new IllegalArgumentException("the session belongs to another application");
        }
        return s;
    }
}
