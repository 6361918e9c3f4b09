package io.sipline.container.api;

import java.net.MalformedURLException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

import javax.servlet.http.HttpSession;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipApplicationSessionAttributeListener;
import javax.servlet.sip.SipApplicationSessionBindingEvent;
import javax.servlet.sip.SipApplicationSessionBindingListener;
import javax.servlet.sip.SipApplicationSessionEvent;
import javax.servlet.sip.SipApplicationSessionListener;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.URI;

/**
 * One application session (JSR 289 §6.1): the SIP sessions, attributes and timers of one application instance, with
 * its expiry (session-config timeout, {@link #setExpires}) on its shard's timing wheel and the invalidate-when-ready
 * mechanism (§6.1.2.2.2).
 * <p>
 * Lives on one shard (its {@link ContainerShard}): its id and every Call-ID, tag and branch of its SIP sessions
 * encode that shard, so every message of every dialog it owns is processed there, one at a time (JSR 289
 * §6.3 serialization without locks). Registered in its shard's {@link SessionTable}.
 * <p>
 * Converged applications (JSR 289 §13): the HTTP sessions bound to it ({@link #addHttpSession}) are protocol
 * sessions of it like its SIP sessions; {@link #encodeURL} marks an HTTP URL with its id
 * ({@link #ENCODED_URL_PARAMETER}), which brings a request for that URL back to it.
 * <p>
 * Threading: the container calls it on its shard; an application may call it from its own threads (JSR 289 leaves
 * concurrent use by the application to the application); an HTTP thread reaches it through
 * {@link ApplicationSessionHandle}, which hands every call to the shard.
 */
public final class SipApplicationSessionImpl implements SipApplicationSession, ContainerShard.TimerTarget
{
    /** JSR 289 §6.1.2.2: the default lifetime of an application session without session-config. */
    public static final int DEFAULT_TIMEOUT_MINUTES = 3;
    /** The query parameter that carries an application session id in an encoded HTTP URL (JSR 289 §13.4). */
    public static final String ENCODED_URL_PARAMETER = "sipappsessionid";

    private final RunningApplication application;
    private final ContainerShard host;
    /** A String (a session taken over from the grid), or an {@link IdText}: no String until someone reads it. */
    private final CharSequence id;
    /** {@link #id} as a String once read as one (an {@link IdText} keeps none), else null. */
    private String idText;
    private final long created;
    private long lastAccessed;
    private long expirationTime;
    private long expiryTimerId = -1;
    private boolean valid = true;
    private boolean invalidateWhenReady = true;
    private boolean readyNotified;
    /** HTTP requests in service that reached this session: while any, nothing in it is invalidated when ready. */
    private int readinessHolds;
    private AttributeTable attributes;
    /**
     * The SIP sessions in the order made ({@link #session(int)}, {@code [0, sessionCount)}): the first two (a B2BUA
     * call's two legs) in fields, so that a call holds no array for them, the others in {@link #moreSessions}.
     */
    private SipSessionImpl firstSession;
    private SipSessionImpl secondSession;
    /** The SIP sessions from the third on (index 2 at slot 0), or null while there never were more than two. */
    private SipSessionImpl[] moreSessions;
    private int sessionCount;
    private int sessionCounter;
    /** The key, HTTP sessions, servlet timers and snapshot version, which few sessions have; made on first use. */
    private ApplicationExtras extras;
    /** The serial executor of this session's calls when the application runs on virtual threads, or null. */
    private volatile Executor lane;

    /**
     * Creates the session and registers it in its shard's table; schedules its expiry (on the shard).
     *
     * @param key the {@code @SipApplicationKey} or {@code createApplicationSessionByKey} key, or null.
     */
    public SipApplicationSessionImpl(final RunningApplication application, final ContainerShard host, final String key)
    {
        this.application = application;
        this.host = host;
        this.id = host.newTagText();
        if (null != key)
        {
            extras().key = key;
        }
        this.created = this.lastAccessed = host.currentTimeMillis();
        final int minutes = application.sessionTimeoutMinutes();
        this.expirationTime = minutes > 0 ? created + minutes * 60_000L : 0;
        host.sessions().putApplication(this);
        application.sessionsChanged(host.index(), 1);
        created();
    }

    /**
     * The session another node of the cluster wrote to the grid, taken over by this node ({@link SessionTakeover}):
     * its id, creation time and expiry as written; registered in the shard's table, its expiry scheduled. Shard
     * only; no listener is told (the session was not created, it moved).
     *
     * @param expiresAtMs epoch milliseconds; 0 for never.
     */
    SipApplicationSessionImpl(final RunningApplication application, final ContainerShard host, final String id,
        final long createdMs, final long expiresAtMs)
    {
        this.application = application;
        this.host = host;
        this.id = id;
        this.created = createdMs;
        this.lastAccessed = host.currentTimeMillis();
        this.expirationTime = expiresAtMs;
        host.sessions().putApplication(this);
        application.sessionsChanged(host.index(), 1);
        scheduleExpiry();
    }

    /** Tells the listeners and schedules the expiry of a session just created. */
    private void created()
    {
        final ClassLoader previousLoader = ListenerLoader.enter(application);
        try
        {
            final List<SipApplicationSessionListener> listeners =
                application.listeners(SipApplicationSessionListener.class);
            for (int i = 0; i < listeners.size(); i++) // by index: a for-each makes an iterator per session
            {
                listeners.get(i).sessionCreated(new SipApplicationSessionEvent(this));
            }
        }
        finally
        {
            ListenerLoader.exit(previousLoader);
        }
        if (expirationTime > 0 && host.onShardThread())
        {
            scheduleExpiry();
        }
        else if (expirationTime > 0)
        {
            host.execute(this::scheduleExpiry);
        }
    }

    public ContainerShard host()
    {
        return host;
    }

    /** The serial executor of this session's calls when the application runs on virtual threads, or null. */
    public Executor lane()
    {
        return lane;
    }

    public void lane(final Executor value)
    {
        lane = value;
    }

    public RunningApplication application()
    {
        return application;
    }

    public String key()
    {
        return null == extras ? null : extras.key;
    }

    private ApplicationExtras extras()
    {
        if (null == extras)
        {
            extras = new ApplicationExtras();
        }
        return extras;
    }

    /** The servlet timers, or null when none was ever added. */
    private Map<String, ServletTimerImpl> timers()
    {
        return null == extras ? null : extras.timers;
    }

    /** The HTTP sessions bound to this one, or null when none ever was. */
    private List<HttpSession> httpSessions()
    {
        return null == extras ? null : extras.httpSessions;
    }

    /** The B2BUA helper for this application session: its application's. */
    public B2buaHelper b2buaHelper()
    {
        return application.b2buaHelper();
    }

    int nextSessionNumber()
    {
        return ++sessionCounter;
    }

    void add(final SipSessionImpl session)
    {
        if (sessionCount >= 2)
        {
            if (null == moreSessions)
            {
                moreSessions = new SipSessionImpl[2];
            }
            else if (sessionCount - 2 == moreSessions.length)
            {
                moreSessions = Arrays.copyOf(moreSessions, 2 * moreSessions.length);
            }
        }
        session(sessionCount++, session);
    }

    void remove(final SipSessionImpl session)
    {
        for (int i = 0; i < sessionCount; i++)
        {
            if (session(i) == session)
            {
                for (int j = i + 1; j < sessionCount; j++) // the later ones move up: the order made is kept
                {
                    session(j - 1, session(j));
                }
                session(--sessionCount, null);
                return;
            }
        }
    }

    /** The SIP session at {@code i} in the order made, {@code i} in {@code [0, sessionCount)}. */
    private SipSessionImpl session(final int i)
    {
        return 0 == i ? firstSession : 1 == i ? secondSession : moreSessions[i - 2];
    }

    private void session(final int i, final SipSessionImpl session)
    {
        if (0 == i)
        {
            firstSession = session;
        }
        else if (1 == i)
        {
            secondSession = session;
        }
        else
        {
            moreSessions[i - 2] = session;
        }
    }

    /** The SIP sessions now, in the order made, as a new array. */
    private SipSessionImpl[] sessionArray()
    {
        final SipSessionImpl[] all = new SipSessionImpl[sessionCount];
        for (int i = 0; i < all.length; i++)
        {
            all[i] = session(i);
        }
        return all;
    }

    void touch()
    {
        lastAccessed = host.currentTimeMillis();
    }

    void addTimer(final ServletTimerImpl timer)
    {
        final ApplicationExtras x = extras();
        if (null == x.timers)
        {
            x.timers = new LinkedHashMap<>(4);
        }
        x.timers.put(timer.getId(), timer);
    }

    void removeTimer(final ServletTimerImpl timer)
    {
        final Map<String, ServletTimerImpl> timers = timers();
        if (null != timers)
        {
            timers.remove(timer.getId());
        }
    }

    /** The pending servlet timers, in creation order (a copy; container use). */
    List<ServletTimerImpl> timerList()
    {
        final Map<String, ServletTimerImpl> timers = timers();
        return null == timers ? List.of() : List.copyOf(timers.values());
    }

    /** The attributes, or null when none was ever set. */
    AttributeTable attributeTable()
    {
        return attributes;
    }

    /** An attribute of a session taken over from another node: stored, told to no listener (it moved). */
    void restoreAttribute(final String name, final Object value)
    {
        if (null == attributes)
        {
            attributes = new AttributeTable(4);
        }
        attributes.put(name, value);
    }

    /** The version of the next snapshot of this session: one more than the last. */
    long nextSnapshotVersion()
    {
        return ++extras().snapshotVersion;
    }

    /** The SIP sessions now, as a new list (container use). */
    public List<SipSessionImpl> sipSessions()
    {
        return Arrays.asList(sessionArray());
    }

    // ================================================================================================================
    // Expiry and invalidate-when-ready
    // ================================================================================================================

    private void scheduleExpiry()
    {
        if (!valid || expirationTime <= 0)
        {
            return;
        }
        if (expiryTimerId >= 0)
        {
            host.cancel(expiryTimerId);
        }
        expiryTimerId = host.schedule(Math.max(0, expirationTime - host.currentTimeMillis()), this);
    }

    /** The expiry timer fired: listeners may extend the session with {@link #setExpires}; else it is invalidated. */
    @Override
    public void onTimer(final long timerId)
    {
        if (timerId != expiryTimerId || !valid)
        {
            return;
        }
        expiryTimerId = -1;
        final long before = expirationTime;
        final ClassLoader previousLoader = ListenerLoader.enter(application);
        try
        {
            final List<SipApplicationSessionListener> listeners =
                application.listeners(SipApplicationSessionListener.class);
            for (int i = 0; i < listeners.size(); i++) // by index: a for-each makes an iterator per session
            {
                listeners.get(i).sessionExpired(new SipApplicationSessionEvent(this));
            }
        }
        finally
        {
            ListenerLoader.exit(previousLoader);
        }
        if (valid && expirationTime == before)
        {
            invalidateNow();
        }
    }

    /**
     * After the container dispatched an event to this application session: SIP sessions that became ready to
     * invalidate are told and invalidated (when they want it), then the application session likewise (§6.1.2.2.2).
     */
    public void checkReady()
    {
        if (!valid || readinessHolds > 0)
        {
            return;
        }
        for (int i = sessionCount - 1; i >= 0 && i < sessionCount; i--)
        {
            final SipSessionImpl s = session(i);
            if (s.isValid() && s.readyToInvalidate() && !s.readyNotified())
            {
                s.readyNotified(true);
                SessionInvalidation.readyToInvalidate(s);
                if (s.isValid() && s.invalidateWhenReadyFlag() && s.readyToInvalidate())
                {
                    s.invalidateNow();
                }
            }
        }
        if (valid && readyToInvalidate() && !readyNotified)
        {
            readyNotified = true;
            final ClassLoader previousLoader = ListenerLoader.enter(application);
            try
            {
                final List<SipApplicationSessionListener> listeners =
                    application.listeners(SipApplicationSessionListener.class);
                for (int i = 0; i < listeners.size(); i++) // by index: a for-each makes an iterator per session
                {
                    listeners.get(i).sessionReadyToInvalidate(new SipApplicationSessionEvent(this));
                }
            }
            finally
            {
                ListenerLoader.exit(previousLoader);
            }
            if (valid && invalidateWhenReady && readyToInvalidate())
            {
                invalidateNow();
            }
        }
    }

    /** An HTTP request reached this session ({@link HttpRequestScope}): readiness waits for its end. Owner only. */
    void holdReadiness()
    {
        readinessHolds++;
    }

    /** The request that held this session ended: readiness is checked again. Owner only. */
    void releaseReadiness()
    {
        if (readinessHolds > 0)
        {
            readinessHolds--;
        }
        checkReady();
    }

    /** §6.1.2.2.2: every protocol session invalidated (they remove themselves) and no timer left. */
    boolean readyToInvalidate()
    {
        final Map<String, ServletTimerImpl> timers = timers();
        final List<HttpSession> httpSessions = httpSessions();
        return 0 == sessionCount && (null == timers || timers.isEmpty())
            && (null == httpSessions || httpSessions.isEmpty());
    }

    private void invalidateNow()
    {
        if (!valid)
        {
            return;
        }
        if (0 != sessionCount) // invalidated when ready, it has none left: no copy to make
        {
            for (final SipSessionImpl s : sessionArray())
            {
                s.invalidateNow();
            }
        }
        invalidateHttpSessions();
        final Map<String, ServletTimerImpl> timers = timers();
        if (null != timers)
        {
            for (final ServletTimerImpl t : new ArrayList<>(timers.values()))
            {
                t.cancel();
            }
        }
        if (expiryTimerId >= 0)
        {
            final long timerId = expiryTimerId;
            expiryTimerId = -1;
            if (host.onShardThread())
            {
                host.cancel(timerId); // no task to queue (and no lambda to allocate) on the wheel's own thread
            }
            else
            {
                host.execute(() -> host.cancel(timerId));
            }
        }
        final ClassLoader previousLoader = ListenerLoader.enter(application);
        try
        {
            final List<SipApplicationSessionListener> listeners =
                application.listeners(SipApplicationSessionListener.class);
            for (int i = 0; i < listeners.size(); i++) // by index: a for-each makes an iterator per session
            {
                listeners.get(i).sessionDestroyed(new SipApplicationSessionEvent(this));
            }
        }
        finally
        {
            ListenerLoader.exit(previousLoader);
        }
        if (null != attributes)
        {
            // the first name each time, once per attribute there was (see SessionAttributes.removeAll)
            for (int n = attributes.size(); n > 0; n--)
            {
                final String name = attributes.firstName();
                if (null == name)
                {
                    break;
                }
                removeAttribute(name);
            }
        }
        valid = false;
        SessionSnapshots.ended(this);
        host.sessions().removeApplication(this);
        application.sessionsChanged(host.index(), -1);
    }

    // ================================================================================================================
    // SipApplicationSession
    // ================================================================================================================

    /** Adds this session's id to a URI (JSR 289 §15.11.1 encoded URI) so that requests to it come back here. */
    @Deprecated
    @Override
    public void encodeURI(final URI uri)
    {
        checkValid();
        if (!(uri instanceof SipURI) && !"tel".equals(uri.getScheme()))
        {
            throw new IllegalArgumentException("only sip, sips and tel URIs can be encoded");
        }
        uri.setParameter(SessionTable.ENCODED_URI_PARAMETER, getId());
    }

    /**
     * The URL with this session's id as the query parameter {@link #ENCODED_URL_PARAMETER} (JSR 289 §13.4): an HTTP
     * request for it is bound to this application session (its {@code ConvergedHttpSession.getApplicationSession()}).
     */
    @Override
    public URL encodeURL(final URL url)
    {
        checkValid();
        final String text = url.toString();
        final int hash = text.indexOf('#');
        final String base = hash < 0 ? text : text.substring(0, hash);
        final String fragment = hash < 0 ? "" : text.substring(hash);
        final String encoded = base + (base.indexOf('?') < 0 ? '?' : '&') + ENCODED_URL_PARAMETER + '=' + id
            + fragment;
        try
        {
            return java.net.URI.create(encoded).toURL();
        }
        catch (final MalformedURLException | IllegalArgumentException e)
        {
            throw new IllegalArgumentException("cannot encode " + url + ": " + e.getMessage(), e);
        }
    }

    /** Binds an HTTP session of this application to this session (a converged application's). Shard only. */
    public void addHttpSession(final HttpSession session)
    {
        checkValid();
        final ApplicationExtras x = extras();
        if (null == x.httpSessions)
        {
            x.httpSessions = new ArrayList<>(1);
        }
        if (null == findHttp(session.getId()))
        {
            x.httpSessions.add(session);
        }
    }

    /** Unbinds the HTTP session of that id (it was invalidated or timed out); no-op when not bound. Shard only. */
    public void removeHttpSession(final String httpSessionId)
    {
        final HttpSession found = findHttp(httpSessionId);
        if (null != found)
        {
            httpSessions().remove(found);
        }
    }

    private HttpSession findHttp(final String httpSessionId)
    {
        final List<HttpSession> httpSessions = httpSessions();
        if (null != httpSessions)
        {
            for (final HttpSession h : httpSessions)
            {
                if (h.getId().equals(httpSessionId))
                {
                    return h;
                }
            }
        }
        return null;
    }

    /**
     * JSR 289 §6.1.2.2: invalidating the application session invalidates its protocol sessions. The HTTP ones belong
     * to the web engine, which locks them: they are invalidated on a virtual thread, never on the shard.
     */
    private void invalidateHttpSessions()
    {
        final List<HttpSession> httpSessions = httpSessions();
        if (null == httpSessions || httpSessions.isEmpty())
        {
            return;
        }
        final List<HttpSession> http = new ArrayList<>(httpSessions);
        httpSessions.clear();
        Thread.ofVirtual().name("sipline-http-invalidate").start(() ->
        {
            for (final HttpSession h : http)
            {
                try
                {
                    h.invalidate();
                }
                catch (final IllegalStateException alreadyInvalid)
                {
                    // it ended on its own meanwhile: nothing to do
                }
            }
        });
    }

    @Override
    public String getApplicationName()
    {
        return application.name();
    }

    @Override
    public Object getAttribute(final String name)
    {
        checkValid();
        return null == attributes ? null : attributes.get(name);
    }

    @Override
    public Iterator<String> getAttributeNames()
    {
        checkValid();
        return null == attributes ? Collections.emptyIterator() : Arrays.asList(attributes.names()).iterator();
    }

    @Override
    public void setAttribute(final String name, final Object attribute)
    {
        checkValid();
        if (null == name || null == attribute)
        {
            throw new NullPointerException(null == name ? "name" : "attribute");
        }
        if (null == attributes)
        {
            attributes = new AttributeTable(4);
        }
        final Object old = attributes.put(name, attribute);
        if (old == attribute)
        {
            return;
        }
        if (attribute instanceof SipApplicationSessionBindingListener b)
        {
            b.valueBound(new SipApplicationSessionBindingEvent(this, name));
        }
        if (old instanceof SipApplicationSessionBindingListener b)
        {
            b.valueUnbound(new SipApplicationSessionBindingEvent(this, name));
        }
        final ClassLoader previousLoader = ListenerLoader.enter(application);
        try
        {
            final List<SipApplicationSessionAttributeListener> listeners =
                application.listeners(SipApplicationSessionAttributeListener.class);
            for (int i = 0; i < listeners.size(); i++) // by index: a for-each makes an iterator per attribute
            {
                if (null == old)
                {
                    listeners.get(i).attributeAdded(new SipApplicationSessionBindingEvent(this, name));
                }
                else
                {
                    listeners.get(i).attributeReplaced(new SipApplicationSessionBindingEvent(this, name));
                }
            }
        }
        finally
        {
            ListenerLoader.exit(previousLoader);
        }
    }

    @Override
    public void removeAttribute(final String name)
    {
        checkValid();
        final Object old = null == attributes ? null : attributes.remove(name);
        if (null == old)
        {
            return;
        }
        if (old instanceof SipApplicationSessionBindingListener b)
        {
            b.valueUnbound(new SipApplicationSessionBindingEvent(this, name));
        }
        final ClassLoader previousLoader = ListenerLoader.enter(application);
        try
        {
            final List<SipApplicationSessionAttributeListener> listeners =
                application.listeners(SipApplicationSessionAttributeListener.class);
            for (int i = 0; i < listeners.size(); i++) // by index, as in setAttribute
            {
                listeners.get(i).attributeRemoved(new SipApplicationSessionBindingEvent(this, name));
            }
        }
        finally
        {
            ListenerLoader.exit(previousLoader);
        }
    }

    @Override
    public long getCreationTime()
    {
        checkValid();
        return created;
    }

    @Override
    public long getExpirationTime()
    {
        checkValid();
        return expirationTime;
    }

    @Override
    public String getId()
    {
        String text = idText;
        if (null == text)
        {
            text = id.toString();
            idText = text; // made again, equal, by a thread that races
        }
        return text;
    }

    /** {@link #getId()} as it is kept: a String, or an {@link IdText} that no String was made of. */
    CharSequence idChars()
    {
        return id;
    }

    @Override
    public boolean getInvalidateWhenReady()
    {
        checkValid();
        return invalidateWhenReady;
    }

    @Override
    public void setInvalidateWhenReady(final boolean value)
    {
        checkValid();
        invalidateWhenReady = value;
    }

    @Override
    public long getLastAccessedTime()
    {
        return lastAccessed;
    }

    @Override
    public Iterator<?> getSessions()
    {
        checkValid();
        final List<Object> all = new ArrayList<>(Arrays.asList(sessionArray()));
        final List<HttpSession> httpSessions = httpSessions();
        if (null != httpSessions)
        {
            all.addAll(httpSessions);
        }
        return all.iterator();
    }

    /** The protocol name in any case ({@code "sip"} too), as the reference container accepts it. */
    @Override
    public Iterator<?> getSessions(final String protocol)
    {
        checkValid();
        if ("SIP".equalsIgnoreCase(protocol))
        {
            return new ArrayList<SipSession>(Arrays.asList(sessionArray())).iterator();
        }
        if ("HTTP".equalsIgnoreCase(protocol))
        {
            final List<HttpSession> httpSessions = httpSessions();
            return null == httpSessions ? Collections.emptyIterator() : new ArrayList<>(httpSessions).iterator();
        }
        throw new IllegalArgumentException("protocol " + protocol + " is not SIP or HTTP");
    }

    @Override
    public SipSession getSipSession(final String sessionId)
    {
        checkValid();
        for (int i = 0; i < sessionCount; i++)
        {
            final SipSessionImpl s = session(i);
            if (s.getId().equals(sessionId))
            {
                return s;
            }
        }
        return null;
    }

    @Override
    public Object getSession(final String sessionId, final Protocol protocol)
    {
        checkValid();
        return null == protocol ? null : switch (protocol)
        {
            case SIP -> getSipSession(sessionId);
            case HTTP -> findHttp(sessionId);
        };
    }

    @Override
    public ServletTimer getTimer(final String timerId)
    {
        checkValid();
        final Map<String, ServletTimerImpl> timers = timers();
        return null == timers ? null : timers.get(timerId);
    }

    @Override
    public Collection<ServletTimer> getTimers()
    {
        checkValid();
        final Map<String, ServletTimerImpl> timers = timers();
        return null == timers ? List.of() : List.copyOf(timers.values());
    }

    @Override
    public void invalidate()
    {
        checkValid();
        invalidateNow();
    }

    @Override
    public boolean isReadyToInvalidate()
    {
        checkValid();
        return readyToInvalidate();
    }

    @Override
    public boolean isValid()
    {
        return valid;
    }

    /**
     * Extends the lifetime (§6.1.2.2.1): minutes from now, 0 or less for never.
     *
     * @return the minutes granted.
     */
    @Override
    public int setExpires(final int deltaMinutes)
    {
        checkValid();
        expirationTime = deltaMinutes <= 0 ? 0 : host.currentTimeMillis() + deltaMinutes * 60_000L;
        if (host.onShardThread())
        {
            rescheduleExpiry();
        }
        else
        {
            host.execute(this::rescheduleExpiry);
        }
        return Math.max(0, deltaMinutes);
    }

    private void rescheduleExpiry()
    {
        if (expirationTime <= 0)
        {
            if (expiryTimerId >= 0)
            {
                host.cancel(expiryTimerId);
                expiryTimerId = -1;
            }
            return;
        }
        scheduleExpiry();
    }

    private void checkValid()
    {
        if (!valid)
        {
            throw new IllegalStateException("the SipApplicationSession " + id + " was invalidated");
        }
    }

    @Override
    public String toString()
    {
        return "SipApplicationSession[" + id + " " + application.name() + "]";
    }
}
