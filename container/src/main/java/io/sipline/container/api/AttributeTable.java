package io.sipline.container.api;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The attributes of one session (JSR 289 §6.1.2, §6.2.5) by name: two parallel arrays searched in order while there
 * are few (a call's handful of attributes cost two small arrays, not a hash table with a node per entry), a
 * {@link HashMap} once there are more than {@link #MAX_LINEAR}. Names are kept in the order they were first set.
 * Tells no listener: the session does.
 * <p>
 * Not threadsafe; owned by its session, used on its shard or by the application while it holds the application
 * session.
 */
final class AttributeTable
{
    /** Beyond this many attributes a linear search costs more than a hash lookup. */
    static final int MAX_LINEAR = 8;

    private String[] names;
    private Object[] values;
    private int size;
    /** Every attribute once there were more than {@link #MAX_LINEAR} (the arrays are then null), else null. */
    private Map<String, Object> map;

    AttributeTable(final int capacity)
    {
        names = new String[capacity];
        values = new Object[capacity];
    }

    /** A copy of {@code other}. */
    AttributeTable(final AttributeTable other)
    {
        if (null != other.map)
        {
            map = new HashMap<>(other.map);
        }
        else
        {
            names = Arrays.copyOf(other.names, other.names.length);
            values = Arrays.copyOf(other.values, other.values.length);
            size = other.size;
        }
    }

    int size()
    {
        return null != map ? map.size() : size;
    }

    Object get(final String name)
    {
        if (null != map)
        {
            return map.get(name);
        }
        final int i = indexOf(name);
        return i < 0 ? null : values[i];
    }

    /** Sets the attribute; returns the value it replaced, or null. */
    Object put(final String name, final Object value)
    {
        if (null != map)
        {
            return map.put(name, value);
        }
        final int i = indexOf(name);
        if (i >= 0)
        {
            final Object old = values[i];
            values[i] = value;
            return old;
        }
        if (size == MAX_LINEAR)
        {
            map = new HashMap<>(MAX_LINEAR * 4);
            for (int j = 0; j < size; j++)
            {
                map.put(names[j], values[j]);
            }
            names = null;
            values = null;
            size = 0;
            return map.put(name, value);
        }
        if (size == names.length)
        {
            final int n = Math.min(MAX_LINEAR, size * 2);
            names = Arrays.copyOf(names, n);
            values = Arrays.copyOf(values, n);
        }
        names[size] = name;
        values[size] = value;
        size++;
        return null;
    }

    /** Removes the attribute; returns its value, or null when there was none. */
    Object remove(final String name)
    {
        if (null != map)
        {
            return map.remove(name);
        }
        final int i = indexOf(name);
        if (i < 0)
        {
            return null;
        }
        final Object old = values[i];
        System.arraycopy(names, i + 1, names, i, size - i - 1);
        System.arraycopy(values, i + 1, values, i, size - i - 1);
        size--;
        names[size] = null;
        values[size] = null;
        return old;
    }

    /**
     * The name set first of those left, or null when there is none: removing the first name as many times as
     * {@link #size()} said empties the table in the order names were set, with no array copied for it.
     */
    String firstName()
    {
        if (null != map)
        {
            return map.isEmpty() ? null : map.keySet().iterator().next();
        }
        return 0 == size ? null : names[0];
    }

    /** The names, as a new array (iterating it is safe while attributes are removed). */
    String[] names()
    {
        return null != map ? map.keySet().toArray(new String[0]) : Arrays.copyOf(names, size);
    }

    private int indexOf(final String name)
    {
        for (int i = 0; i < size; i++)
        {
            if (names[i] == name || names[i].equals(name))
            {
                return i;
            }
        }
        return -1;
    }
}
