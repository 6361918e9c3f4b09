package io.sipline.container.dispatch;

import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.SipSessionsUtil;

import io.sipline.container.api.ApplicationSessionHandle;
import io.sipline.container.api.HeaderText;
import io.sipline.container.api.SipApplicationSessionImpl;
import io.sipline.container.api.SipSessionImpl;

/**
 * {@link SipSessionsUtil} of one application (JSR 289 §6.1.5, a {@code ServletContext} attribute): application
 * sessions by id and by key, limited to the application's own sessions, and the session a Join or Replaces header
 * names (RFC 3911, RFC 3891).
 * <p>
 * Threading: any thread (the session tables it reads are concurrent for application sessions); off the shards an
 * application session is given as an {@link ApplicationSessionHandle}. The corresponding session is looked up on the
 * caller's shard.
 */
final class SipSessionsUtilImpl implements SipSessionsUtil
{
    private final ApplicationRegistry registry;
    private final String applicationName;

    SipSessionsUtilImpl(final ApplicationRegistry registry, final String applicationName)
    {
        this.registry = registry;
        this.applicationName = applicationName;
    }

    @Override
    public SipApplicationSession getApplicationSessionById(final String applicationSessionId)
    {
        if (null == applicationSessionId)
        {
            throw new NullPointerException("applicationSessionId");
        }
        final SipApplicationSessionImpl s = registry.applicationSession(applicationSessionId);
        return null != s && applicationName.equals(s.getApplicationName()) ? forCaller(s) : null;
    }

    @Override
    public SipApplicationSession getApplicationSessionByKey(final String applicationSessionKey,
        final boolean create)
    {
        if (null == applicationSessionKey)
        {
            throw new NullPointerException("applicationSessionKey");
        }
        final SipApplicationSessionImpl s = registry.byKey(applicationName, applicationSessionKey);
        if (null != s || !create)
        {
            return forCaller(s);
        }
        final RunningApplicationImpl app = registry.application(applicationName);
        return null == app ? null : app.factory().createApplicationSessionByKey(applicationSessionKey);
    }

    /**
     * The session as the caller may use it: itself on a shard; off the shards (an HTTP thread, an application's own
     * thread) an {@link ApplicationSessionHandle} that runs each call where the session's calls run.
     */
    private SipApplicationSession forCaller(final SipApplicationSessionImpl s)
    {
        return null == s || null != registry.current() ? s : new ApplicationSessionHandle(s);
    }

    /**
     * The SIP session that the Join or Replaces header of {@code session}'s initial request names: its Call-ID and
     * the to-tag (our local tag) select the dialog on this shard.
     */
    @Override
    public SipSession getCorrespondingSipSession(final SipSession session, final String headerName)
    {
        if (!"Join".equalsIgnoreCase(headerName) && !"Replaces".equalsIgnoreCase(headerName))
        {
            throw new IllegalArgumentException("header must be Join or Replaces: " + headerName);
        }
        if (!(session instanceof SipSessionImpl s) || null == s.original())
        {
            return null;
        }
        final String value = s.original().getHeader(headerName);
        if (null == value)
        {
            return null;
        }
        final int semicolon = value.indexOf(';');
        final String callId = (semicolon < 0 ? value : value.substring(0, semicolon)).strip();
        final String toTag = HeaderText.param("<x:x>" + (semicolon < 0 ? "" : value.substring(semicolon)), "to-tag");
        final SipSessionImpl found = s.host().sessions().dialog(callId, toTag);
        return null != found && found.appSession().getApplicationName().equals(applicationName) ? found : null;
    }
}
