package io.sipline.container.session;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

import io.sipline.sip.message.SipMessage;

/**
 * One shard's sessions: SIP sessions by dialog (the local tag's id bits, Call-ID checked: what an in-dialog request's To tag and a
 * response's From tag name), application sessions by id and by key (JSR 289 §15.11.2 {@code @SipApplicationKey},
 * {@code createApplicationSessionByKey}).
 * <p>
 * Threading: the dialog table is touched only on its shard (plain arrays). Application sessions may be created and
 * looked up from any thread (an application creates one from its own thread; {@code SipSessionsUtil} looks one up
 * by id), so those two maps are concurrent; their writers are the shard or the creating thread, never both at
 * once for one session.
 */
public final class SessionTable
{
    /** The URI parameter that carries an encoded application session id (JSR 289 §15.11.1). */
    public static final String ENCODED_URI_PARAMETER = io.sipline.sip.stack.SipShard.TARGET_URI_PARAMETER;

    /** SIP sessions by local tag: open addressing over the tag's 60 id bits, linear probing, no tombstones. */
    private long[] keys = new long[2048];
    private SipSessionImpl[] values = new SipSessionImpl[2048];
    private int size;
    private final ConcurrentHashMap<String, SipApplicationSessionImpl> applications = new ConcurrentHashMap<>(1024);
    private final ConcurrentHashMap<String, SipApplicationSessionImpl> byKey = new ConcurrentHashMap<>();

    /**
     * The key of a tag this stack made ({@code ShardIds}: 's', two hex digits of shard, thirteen of random bits), or
     * -1 for any other text. Our local tags are always such ids; a peer's To tag that is not one matches nothing.
     */
    static long key(final CharSequence tag)
    {
        if (null == tag || tag.length() != 16 || tag.charAt(0) != 's')
        {
            return -1;
        }
        long k = 0;
        for (int i = 1; i < 16; i++)
        {
            final int d = Character.digit(tag.charAt(i), 16);
            if (d < 0)
            {
                return -1;
            }
            k = (k << 4) | d;
        }
        return k;
    }

    private static long key(final byte[] b, final int start, final int end)
    {
        if (start < 0 || end - start != 16 || b[start] != 's')
        {
            return -1;
        }
        long k = 0;
        for (int i = start + 1; i < end; i++)
        {
            final int d = Character.digit(b[i], 16);
            if (d < 0)
            {
                return -1;
            }
            k = (k << 4) | d;
        }
        return k;
    }

    private int slot(final long k)
    {
        final long h = k * 0x9E3779B97F4A7C15L;
        return (int)(h ^ (h >>> 32)) & (keys.length - 1);
    }

    private SipSessionImpl get(final long k)
    {
        if (k < 0)
        {
            return null;
        }
        for (int i = slot(k); null != values[i]; i = (i + 1) & (keys.length - 1))
        {
            if (keys[i] == k)
            {
                return values[i];
            }
        }
        return null;
    }

    /**
     * The SIP session registered under (Call-ID, local tag), or null; the head of a forked request's sessions when
     * it has derived ones (see {@link SipSessionImpl#dialogFor(String)}). Shard only.
     */
    public SipSessionImpl dialog(final String callId, final String localTag)
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
        if (null == s || null == s.callId())
        {
            return null;
        }
        final String callId = s.callId();
        final byte[] b = m.buffer();
        final int start = m.callIdStart();
        if (m.callIdEnd() - start != callId.length())
        {
            return null;
        }
        for (int i = 0; i < callId.length(); i++)
        {
            if (b[start + i] != callId.charAt(i))
            {
                return null;
            }
        }
        return s;
    }

    void putDialog(final String callId, final String localTag, final SipSessionImpl session)
    {
        final long k = key(localTag);
        if (k < 0)
        {
            throw new IllegalArgumentException("not a local tag of this stack: " + localTag);
        }
        if (2 * (size + 1) > keys.length)
        {
            grow();
        }
        int i = slot(k);
        while (null != values[i] && keys[i] != k)
        {
            i = (i + 1) & (keys.length - 1);
        }
        if (null == values[i])
        {
            size++;
        }
        keys[i] = k;
        values[i] = session;
    }

    void removeDialog(final String callId, final String localTag, final SipSessionImpl session)
    {
        final long k = key(localTag);
        if (k < 0)
        {
            return;
        }
        final int mask = keys.length - 1;
        int i = slot(k);
        while (null != values[i] && keys[i] != k)
        {
            i = (i + 1) & mask;
        }
        if (null == values[i] || values[i] != session)
        {
            return;
        }
        // backward-shift deletion: move later entries of the run into the hole when their home allows it
        int hole = i;
        values[hole] = null;
        size--;
        for (int j = (hole + 1) & mask; null != values[j]; j = (j + 1) & mask)
        {
            final int home = slot(keys[j]);
            if (((j - home) & mask) >= ((j - hole) & mask))
            {
                keys[hole] = keys[j];
                values[hole] = values[j];
                values[j] = null;
                hole = j;
            }
        }
    }

    private void grow()
    {
        final long[] oldKeys = keys;
        final SipSessionImpl[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new SipSessionImpl[oldKeys.length * 2];
        for (int i = 0; i < oldKeys.length; i++)
        {
            if (null != oldValues[i])
            {
                int j = slot(oldKeys[i]);
                while (null != values[j])
                {
                    j = (j + 1) & (keys.length - 1);
                }
                keys[j] = oldKeys[i];
                values[j] = oldValues[i];
            }
        }
    }

    /** Number of SIP sessions registered by dialog (shard only; tests and metrics). */
    public int dialogCount()
    {
        return size;
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
