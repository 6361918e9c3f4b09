package io.sipline.container.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;

import javax.servlet.sip.SipSessionAttributeListener;
import javax.servlet.sip.SipSessionBindingEvent;
import javax.servlet.sip.SipSessionBindingListener;

/**
 * The attributes of one {@link SipSessionImpl} (JSR 289 §6.2.5) and the listeners they tell: the value's own
 * {@link SipSessionBindingListener} and the application's {@link SipSessionAttributeListener}s. The session makes
 * one on its first attribute and drops it with the last, so that an established call without attributes holds none.
 * <p>
 * Not threadsafe; used by the session's shard or by the application while it holds the application session.
 */
final class SessionAttributes
{
    private final SipSessionImpl session;
    private Map<String, Object> values;

    SessionAttributes(final SipSessionImpl session)
    {
        this.session = session;
    }

    /** A copy of {@code other}'s attributes for {@code session} (a derived session's), told to no listener. */
    static SessionAttributes copyOf(final SessionAttributes other, final SipSessionImpl session)
    {
        final SessionAttributes a = new SessionAttributes(session);
        if (null != other.values)
        {
            a.values = new HashMap<>(other.values);
        }
        return a;
    }

    Object get(final String name)
    {
        return null == values ? null : values.get(name);
    }

    Enumeration<String> names()
    {
        return null == values ? Collections.emptyEnumeration()
            : Collections.enumeration(new ArrayList<>(values.keySet()));
    }

    void set(final String name, final Object attribute)
    {
        if (null == name || null == attribute)
        {
            throw new NullPointerException(null == name ? "name" : "attribute");
        }
        if (null == values)
        {
            values = new HashMap<>(4);
        }
        final Object old = values.put(name, attribute);
        if (old == attribute)
        {
            return;
        }
        if (attribute instanceof SipSessionBindingListener b)
        {
            b.valueBound(new SipSessionBindingEvent(session, name));
        }
        if (old instanceof SipSessionBindingListener b)
        {
            b.valueUnbound(new SipSessionBindingEvent(session, name));
        }
        for (final SipSessionAttributeListener l : listeners())
        {
            if (null == old)
            {
                l.attributeAdded(new SipSessionBindingEvent(session, name));
            }
            else
            {
                l.attributeReplaced(new SipSessionBindingEvent(session, name));
            }
        }
    }

    /** Removes an attribute; returns whether none is left (the session then drops this object). */
    boolean remove(final String name)
    {
        final Object old = null == values ? null : values.remove(name);
        if (null == old)
        {
            return null == values || values.isEmpty();
        }
        if (values.isEmpty())
        {
            values = null; // an established call keeps no empty map (an attribute held only until the ACK)
        }
        if (old instanceof SipSessionBindingListener b)
        {
            b.valueUnbound(new SipSessionBindingEvent(session, name));
        }
        for (final SipSessionAttributeListener l : listeners())
        {
            l.attributeRemoved(new SipSessionBindingEvent(session, name));
        }
        return null == values; // a listener may have set another one
    }

    /** Removes every attribute, each told to its listeners (the session is being invalidated). */
    void removeAll()
    {
        if (null != values)
        {
            for (final String name : values.keySet().toArray(new String[0]))
            {
                remove(name);
            }
        }
    }

    private Iterable<SipSessionAttributeListener> listeners()
    {
        return session.appSession().application().listeners(SipSessionAttributeListener.class);
    }
}
