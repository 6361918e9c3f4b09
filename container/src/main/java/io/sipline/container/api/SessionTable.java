package io.sipline.container.api;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

import io.sipline.sip.collection.LongHashIndex;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.shard.ShardIds;

/**
 * One shard's sessions: SIP sessions by dialog (the local tag's id bits, Call-ID checked: what an in-dialog
 * request's To tag and a response's From tag name), application sessions by id and by key (JSR 289 §15.11.2
 * {@code @SipApplicationKey}, {@code createApplicationSessionByKey}).
 * <p>
 * Threading: the dialog table is touched only on its shard (a {@link LongHashIndex}: plain arrays that grow a few slots
 * per put, so that many held calls never stop the shard for a rehash). Application sessions may be created and
 * looked up from any thread (an application creates one from its own thread; {@code SipSessionsUtil} looks one up
 * by id), so those two maps are concurrent; their writers are the shard or the creating thread, never both at
 * once for one session.
 */
public final class SessionTable
{
    /** The URI parameter that carries an encoded application session id (JSR 289 §15.11.1). */
    public static final String ENCODED_URI_PARAMETER = io.sipline.sip.stack.StackShard.TARGET_URI_PARAMETER;

    /** How often {@link #trim} looks at the dialog index. */
    static final long TRIM_PERIOD_NS = 1_000_000_000L;
    /** Trims in a row the dialog index must stay at an eighth of its slots or less before it shrinks. */
    static final int QUIET_TRIMS = 64;

    /** SIP sessions by local tag, keyed by the tag's 60 id bits; one session per key; grows a few slots per put. */
    private final LongHashIndex<SipSessionImpl> dialogs = new LongHashIndex<>(2048);
    private long nextTrimNs;
    private boolean trimmedOnce;
    /** By {@link #applicationKey} of the id: an {@link IdText} for an id of the ShardIds form, else a String. */
    private final ConcurrentHashMap<CharSequence, SipApplicationSessionImpl> applications =
        new ConcurrentHashMap<>(1024);
    private final ConcurrentHashMap<String, SipApplicationSessionImpl> byKey = new ConcurrentHashMap<>();

    /**
     * The key of a tag this stack made ({@code ShardIds}: 's', two hex digits of shard, two of node, thirteen of
     * random bits): the shard's and the random digits, 60 bits; -1 for any other text. Our local tags are always such
     * ids; a peer's To tag that is not one matches nothing.
     */
    static long key(final CharSequence tag)
    {
        if (tag instanceof IdText id && id.length() == ShardIds.ID_LENGTH)
        {
            return id.dialogKey();
        }
        if (null == tag || tag.length() != ShardIds.ID_LENGTH || tag.charAt(0) != 's')
        {
            return -1;
        }
        long k = 0;
        for (int i = 1; i < ShardIds.ID_LENGTH; i++)
        {
            final int d = Character.digit(tag.charAt(i), 16);
            if (d < 0)
            {
                return -1;
            }
            if (i < 3 || i >= ShardIds.RANDOM_OFFSET)
            {
                k = (k << 4) | d;
            }
        }
        return k;
    }

    /**
     * The key of an application session id in {@link #applications}: the same for an id's {@link IdText} and its
     * String (an id made here, or read from an encoded URI), so that a session is found by either without a String of
     * the id made for the table.
     */
    static CharSequence applicationKey(final CharSequence id)
    {
        if (id instanceof IdText)
        {
            return id;
        }
        final IdText made = IdText.parseTag(id);
        return null == made ? id.toString() : made;
    }

    private static long key(final byte[] b, final int start, final int end)
    {
        if (start < 0 || end - start != ShardIds.ID_LENGTH || b[start] != 's')
        {
            return -1;
        }
        long k = 0;
        for (int i = 1; i < ShardIds.ID_LENGTH; i++)
        {
            final int d = Character.digit(b[start + i], 16);
            if (d < 0)
            {
                return -1;
            }
            if (i < 3 || i >= ShardIds.RANDOM_OFFSET)
            {
                k = (k << 4) | d;
            }
        }
        return k;
    }

    private SipSessionImpl get(final long k)
    {
        final int c = k < 0 ? -1 : dialogs.first(k);
        return c < 0 ? null : dialogs.valueAt(c);
    }

    /**
     * The SIP session registered under (Call-ID, local tag), or null; the head of a forked request's sessions when
     * it has derived ones (see {@link SipSessionImpl#dialogFor(String)}). Shard only.
     */
    public SipSessionImpl dialog(final String callId, final CharSequence localTag)
    {
        final SipSessionImpl s = null == callId ? null : get(key(localTag));
        return null != s && callId.equals(s.callId()) ? s : null;
    }

    /**
     * The SIP session a borrowed message belongs to, by its To tag (a request to us) or its From tag (a response to
     * us), the Call-ID compared in place: no String is made. Shard only.
     */
    public SipSessionImpl dialog(final SipMessage m, final boolean byFromTag)
    {
        final SipSessionImpl s = byFromTag ? dialog(m, m.fromTagStart(), m.fromTagEnd())
            : dialog(m, m.toTagStart(), m.toTagEnd());
        if (null == s)
        {
            return null;
        }
        // the sessions derived for a forked request's other dialogs share the local tag (JSR 289 §6.2.3.2): the
        // remote tag (From of a request to us, To of a response) picks one
        final byte[] b = m.buffer();
        return byFromTag ? s.dialogFor(b, m.toTagStart(), m.toTagEnd()) : s.dialogFor(b, m.fromTagStart(),
            m.fromTagEnd());
    }

    /**
     * The SIP session registered under the local tag (or proxy route key) at {@code [keyStart, keyEnd)} of a borrowed
     * message's buffer, in the message's Call-ID, compared in place: no String is made. Shard only.
     */
    public SipSessionImpl dialog(final SipMessage m, final int keyStart, final int keyEnd)
    {
        final SipSessionImpl s = get(key(m.buffer(), keyStart, keyEnd));
        return null != s && s.callIdIs(m.buffer(), m.callIdStart(), m.callIdEnd()) ? s : null;
    }

    /** Registers the session under its local tag (or proxy route key); the Call-ID is checked at lookup. */
    void putDialog(final CharSequence localTag, final SipSessionImpl session)
    {
        final long k = key(localTag);
        if (k < 0)
        {
            throw new IllegalArgumentException("not a local tag of this stack: " + localTag);
        }
        final int c = dialogs.first(k);
        if (c >= 0)
        {
            dialogs.setAt(c, session);
        }
        else
        {
            dialogs.put(k, session);
        }
    }

    void removeDialog(final CharSequence localTag, final SipSessionImpl session)
    {
        final long k = key(localTag);
        if (k >= 0)
        {
            dialogs.remove(k, session);
        }
    }

    /**
     * The shard's tick (earlier calls than once a second return at once): shrinks the dialog index a burst of calls
     * grew once it has stayed mostly empty for {@link #QUIET_TRIMS} seconds ({@link LongHashIndex#trim}), so that
     * it does not keep the burst's high-water mark. Allocates nothing unless it starts a shrink. Shard only.
     */
    public void trim(final long nowNs)
    {
        if (trimmedOnce && nowNs - nextTrimNs < 0)
        {
            return;
        }
        trimmedOnce = true;
        nextTrimNs = nowNs + TRIM_PERIOD_NS;
        dialogs.trim(QUIET_TRIMS);
    }

    /** Slots of the dialog index (shard only; tests). */
    int dialogCapacity()
    {
        return dialogs.capacity();
    }

    /** Number of SIP sessions registered by dialog (shard only; tests and metrics). */
    public int dialogCount()
    {
        return dialogs.size();
    }

    /** An application session by id, or null (any thread). */
    public SipApplicationSessionImpl application(final String id)
    {
        return null == id ? null : applications.get(applicationKey(id));
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
        applications.put(applicationKey(session.idChars()), session);
        if (null != session.key())
        {
            byKey.put(session.getApplicationName() + '\n' + session.key(), session);
        }
    }

    void removeApplication(final SipApplicationSessionImpl session)
    {
        applications.remove(applicationKey(session.idChars()), session);
        if (null != session.key())
        {
            byKey.remove(session.getApplicationName() + '\n' + session.key(), session);
        }
    }
}
