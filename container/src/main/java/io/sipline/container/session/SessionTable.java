package io.sipline.container.session;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One shard's sessions: SIP sessions by dialog (Call-ID and local tag: what an in-dialog request's To tag and a
 * response's From tag name), application sessions by id and by key (JSR 289 §15.11.2 {@code @SipApplicationKey},
 * {@code createApplicationSessionByKey}).
 * <p>
 * Threading: the dialog table is touched only on its shard (a plain map). Application sessions may be created and
 * looked up from any thread (an application creates one from its own thread; {@code SipSessionsUtil} looks one up
 * by id), so those two maps are concurrent; their writers are the shard or the creating thread, never both at
 * once for one session.
 */
public final class SessionTable
{
    /** The URI parameter that carries an encoded application session id (JSR 289 §15.11.1). */
    public static final String ENCODED_URI_PARAMETER = "sipline-appsession";

    private final Map<String, SipSessionImpl> dialogs = new HashMap<>(1024);
    private final ConcurrentHashMap<String, SipApplicationSessionImpl> applications = new ConcurrentHashMap<>(1024);
    private final ConcurrentHashMap<String, SipApplicationSessionImpl> byKey = new ConcurrentHashMap<>();

    private static String dialogKey(final String callId, final String localTag)
    {
        return callId + '\n' + localTag;
    }

    /** The SIP session of a dialog, or null. Shard only. */
    public SipSessionImpl dialog(final String callId, final String localTag)
    {
        return null == callId || null == localTag ? null : dialogs.get(dialogKey(callId, localTag));
    }

    void putDialog(final String callId, final String localTag, final SipSessionImpl session)
    {
        dialogs.put(dialogKey(callId, localTag), session);
    }

    void removeDialog(final String callId, final String localTag, final SipSessionImpl session)
    {
        dialogs.remove(dialogKey(callId, localTag), session);
    }

    /** Number of SIP sessions registered by dialog (shard only; tests and metrics). */
    public int dialogCount()
    {
        return dialogs.size();
    }

    /** An application session by id, or null (any thread). */
    public SipApplicationSessionImpl application(final String id)
    {
        return applications.get(id);
    }

    /** An application session by application name and key, or null (any thread). */
    public SipApplicationSessionImpl applicationByKey(final String applicationName, final String key)
    {
        return byKey.get(applicationName + '\n' + key);
    }

    /** Number of live application sessions (any thread; tests and metrics). */
    public int applicationCount()
    {
        return applications.size();
    }

    /** The live application sessions (any thread; a weakly consistent view). */
    public Collection<SipApplicationSessionImpl> applications()
    {
        return applications.values();
    }

    void putApplication(final SipApplicationSessionImpl session)
    {
        applications.put(session.getId(), session);
        if (null != session.key())
        {
            byKey.put(session.getApplicationName() + '\n' + session.key(), session);
        }
    }

    void removeApplication(final SipApplicationSessionImpl session)
    {
        applications.remove(session.getId(), session);
        if (null != session.key())
        {
            byKey.remove(session.getApplicationName() + '\n' + session.key(), session);
        }
    }
}
