package io.sipline.container.api;

import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

import javax.servlet.sip.SipSessionAttributeListener;
import javax.servlet.sip.SipSessionBindingEvent;
import javax.servlet.sip.SipSessionBindingListener;

/**
 * The attributes of one {@link SipSessionImpl} (JSR 289 §6.2.5) and the listeners they tell: the value's own
 * {@link SipSessionBindingListener} and the application's {@link SipSessionAttributeListener}s. The session makes
 * one on its first attribute and drops it with the last, so that an established call without attributes holds none.
 * A session with one attribute (a B2BUA's 2xx kept until the ACK) holds it in this object's own fields; an
 * {@link AttributeTable} is made for the second, so that the common case costs this object alone.
 * <p>
 * Not threadsafe; used by the session's shard or by the application while it holds the application session.
 */
final class SessionAttributes
{
    /** The one attribute while there is at most one, else null. */
    private String name;
    private Object value;
    /** Every attribute once a second one was set (the fields above are then null), else null. */
    private AttributeTable values;

    /** A copy of {@code other}'s attributes (a derived session's), told to no listener. */
    static SessionAttributes copyOf(final SessionAttributes other)
    {
        final SessionAttributes a = new SessionAttributes();
        a.name = other.name;
        a.value = other.value;
        if (null != other.values)
        {
            a.values = new AttributeTable(other.values);
        }
        return a;
    }

    Object get(final String key)
    {
        if (null != values)
        {
            return values.get(key);
        }
        return null != name && name.equals(key) ? value : null;
    }

    Enumeration<String> names()
    {
        if (null != values)
        {
            return Collections.enumeration(Arrays.asList(values.names()));
        }
        return null == name ? Collections.emptyEnumeration() : Collections.enumeration(List.of(name));
    }

    /** Sets an attribute of {@code session} and tells the listeners; {@code key} and {@code attribute} not null. */
    void set(final SipSessionImpl session, final String key, final Object attribute)
    {
        if (null == key || null == attribute)
        {
            throw new NullPointerException(null == key ? "name" : "attribute");
        }
        final Object old = put(key, attribute);
        if (old == attribute)
        {
            return;
        }
        if (attribute instanceof SipSessionBindingListener b)
        {
            b.valueBound(new SipSessionBindingEvent(session, key));
        }
        if (old instanceof SipSessionBindingListener b)
        {
            b.valueUnbound(new SipSessionBindingEvent(session, key));
        }
        final List<SipSessionAttributeListener> listeners = listeners(session);
        for (int i = 0; i < listeners.size(); i++) // by index: a for-each's iterator stays on the heap under C2
        {
            if (null == old)
            {
                listeners.get(i).attributeAdded(new SipSessionBindingEvent(session, key));
            }
            else
            {
                listeners.get(i).attributeReplaced(new SipSessionBindingEvent(session, key));
            }
        }
    }

    /** An attribute of a session taken over from another node: stored, told to no listener (it moved). */
    void restore(final String key, final Object attribute)
    {
        put(key, attribute);
    }

    /** Stores the attribute; returns the value it replaced, or null. */
    private Object put(final String key, final Object attribute)
    {
        if (null != values)
        {
            return values.put(key, attribute);
        }
        if (null == name || name.equals(key))
        {
            final Object old = value;
            name = key;
            value = attribute;
            return old;
        }
        values = new AttributeTable(4);
        values.put(name, value);
        name = null;
        value = null;
        return values.put(key, attribute);
    }

    /** Removes an attribute of {@code session}; returns whether none is left (the session then drops this object). */
    boolean remove(final SipSessionImpl session, final String key)
    {
        final Object old = take(key);
        if (null == old)
        {
            return isEmpty();
        }
        if (old instanceof SipSessionBindingListener b)
        {
            b.valueUnbound(new SipSessionBindingEvent(session, key));
        }
        final List<SipSessionAttributeListener> listeners = listeners(session);
        for (int i = 0; i < listeners.size(); i++) // by index, as in set
        {
            listeners.get(i).attributeRemoved(new SipSessionBindingEvent(session, key));
        }
        return isEmpty(); // a listener may have set another one
    }

    /** Takes the attribute out; returns its value, or null when there was none. */
    private Object take(final String key)
    {
        if (null != values)
        {
            final Object old = values.remove(key);
            if (0 == values.size())
            {
                values = null; // an established call keeps no empty map
            }
            return old;
        }
        if (null == name || !name.equals(key))
        {
            return null;
        }
        final Object old = value;
        name = null;
        value = null;
        return old;
    }

    private boolean isEmpty()
    {
        return null == values && null == name;
    }

    /** Removes every attribute of {@code session}, each told to its listeners (the session is being invalidated). */
    void removeAll(final SipSessionImpl session)
    {
        if (null != values)
        {
            // the first name each time, once per attribute there was: a listener that sets one meanwhile is not
            // made to loop, and no copy of the names is made
            for (int n = values.size(); n > 0; n--)
            {
                final String key = values.firstName();
                if (null == key)
                {
                    break;
                }
                remove(session, key);
            }
        }
        else if (null != name)
        {
            remove(session, name);
        }
    }

    private static List<SipSessionAttributeListener> listeners(final SipSessionImpl session)
    {
        return session.appSession().application().listeners(SipSessionAttributeListener.class);
    }
}
