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
 * A session with one or two attributes (a B2BUA's 2xx kept until the ACK; a leg's role and state) holds them in this
 * object's own fields, in the order they were set; an {@link AttributeTable} is made for the third, so that the common
 * cases cost this object alone. The table takes the first value field (the first name is then null), so that the
 * object stays four fields, 24 bytes with compact headers.
 * <p>
 * Not threadsafe; used by the session's shard or by the application while it holds the application session.
 */
final class SessionAttributes
{
    /** The first attribute's name; null when there is none, or when {@link #value} is the table of all. */
    private String name;
    /** The first attribute's value, or the {@link AttributeTable} of every attribute once a third one was set. */
    private Object value;
    /** The second attribute, while there are at most two; else null. */
    private String name2;
    private Object value2;

    /** A copy of {@code other}'s attributes (a derived session's), told to no listener. */
    static SessionAttributes copyOf(final SessionAttributes other)
    {
        final SessionAttributes a = new SessionAttributes();
        a.name = other.name;
        a.name2 = other.name2;
        a.value2 = other.value2;
        final AttributeTable all = other.table();
        a.value = null == all ? other.value : new AttributeTable(all);
        return a;
    }

    /** The table of every attribute once there were more than two, else null. */
    private AttributeTable table()
    {
        // no application can set an AttributeTable (the class is the container's): with no first name it is ours
        return null == name && value instanceof AttributeTable all ? all : null;
    }

    Object get(final String key)
    {
        final AttributeTable all = table();
        if (null != all)
        {
            return all.get(key);
        }
        if (null != name && name.equals(key))
        {
            return value;
        }
        return null != name2 && name2.equals(key) ? value2 : null;
    }

    Enumeration<String> names()
    {
        final AttributeTable all = table();
        if (null != all)
        {
            return Collections.enumeration(Arrays.asList(all.names()));
        }
        if (null == name)
        {
            return Collections.emptyEnumeration();
        }
        return Collections.enumeration(null == name2 ? List.of(name) : List.of(name, name2));
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
        final AttributeTable all = table();
        if (null != all)
        {
            return all.put(key, attribute);
        }
        if (null == name || name.equals(key))
        {
            final Object old = value;
            name = key;
            value = attribute;
            return old;
        }
        if (null == name2 || name2.equals(key))
        {
            final Object old = value2;
            name2 = key;
            value2 = attribute;
            return old;
        }
        final AttributeTable table = new AttributeTable(4);
        table.put(name, value);
        table.put(name2, value2);
        name = null;
        name2 = null;
        value2 = null;
        value = table;
        return table.put(key, attribute);
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
        final AttributeTable all = table();
        if (null != all)
        {
            final Object old = all.remove(key);
            if (0 == all.size())
            {
                value = null; // an established call keeps no empty table
            }
            return old;
        }
        if (null != name && name.equals(key))
        {
            final Object old = value;
            name = name2; // the second becomes the first: names stay in the order they were set
            value = value2;
            name2 = null;
            value2 = null;
            return old;
        }
        if (null == name2 || !name2.equals(key))
        {
            return null;
        }
        final Object old = value2;
        name2 = null;
        value2 = null;
        return old;
    }

    private boolean isEmpty()
    {
        return null == name && null == value;
    }

    /** Removes every attribute of {@code session}, each told to its listeners (the session is being invalidated). */
    void removeAll(final SipSessionImpl session)
    {
        // the first name each time, once per attribute there was: a listener that sets one meanwhile is not made to
        // loop, and no copy of the names is made
        final AttributeTable all = table();
        for (int n = null != all ? all.size() : null == name ? 0 : null == name2 ? 1 : 2; n > 0; n--)
        {
            final AttributeTable now = table();
            final String key = null != now ? now.firstName() : name;
            if (null == key)
            {
                break;
            }
            remove(session, key);
        }
    }

    private static List<SipSessionAttributeListener> listeners(final SipSessionImpl session)
    {
        return session.appSession().application().listeners(SipSessionAttributeListener.class);
    }
}
