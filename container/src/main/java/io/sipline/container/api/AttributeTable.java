package io.sipline.container.api;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The attributes of one session (JSR 289 §6.1.2, §6.2.5) by name: one array of names and values side by side
 * ({@code name, value, name, value, ...}) searched in order while there are few (a call's handful of attributes cost
 * one small array, not a hash table with a node per entry), a {@link HashMap} once there are more than
 * {@link #MAX_LINEAR}. Names are kept in the order they were first set. Tells no listener: the session does.
 * <p>
 * The array and the map share one field, so that the table is a 16-byte object with compact headers.
 * <p>
 * Not threadsafe; owned by its session, used on its shard or by the application while it holds the application
 * session.
 */
final class AttributeTable
{
    /** Beyond this many attributes a linear search costs more than a hash lookup. */
    static final int MAX_LINEAR = 8;

    /** The pairs ({@code Object[]}, names at even slots) or, past {@link #MAX_LINEAR}, every attribute (a map). */
    private Object slots;
    /** The pairs in use while {@link #slots} is the array. */
    private int size;

    AttributeTable(final int capacity)
    {
        slots = new Object[2 * capacity];
    }

    /** A copy of {@code other}. */
    AttributeTable(final AttributeTable other)
    {
        if (other.slots instanceof Object[] pairs)
        {
            slots = Arrays.copyOf(pairs, pairs.length);
            size = other.size;
        }
        else
        {
            slots = new HashMap<>(map(other.slots));
        }
    }

    int size()
    {
        return slots instanceof Object[] ? size : map(slots).size();
    }

    Object get(final String name)
    {
        if (!(slots instanceof Object[] pairs))
        {
            return map(slots).get(name);
        }
        final int i = indexOf(pairs, name);
        return i < 0 ? null : pairs[i + 1];
    }

    /** Sets the attribute; returns the value it replaced, or null. */
    Object put(final String name, final Object value)
    {
        if (!(slots instanceof Object[] pairs))
        {
            return map(slots).put(name, value);
        }
        final int i = indexOf(pairs, name);
        if (i >= 0)
        {
            final Object old = pairs[i + 1];
            pairs[i + 1] = value;
            return old;
        }
        if (size == MAX_LINEAR)
        {
            final Map<String, Object> all = new HashMap<>(MAX_LINEAR * 4);
            for (int j = 0; j < 2 * size; j += 2)
            {
                all.put((String)pairs[j], pairs[j + 1]);
            }
            slots = all;
            size = 0;
            return all.put(name, value);
        }
        Object[] room = pairs;
        if (2 * size == pairs.length)
        {
            room = Arrays.copyOf(pairs, 2 * Math.min(MAX_LINEAR, Math.max(1, size * 2)));
            slots = room;
        }
        room[2 * size] = name;
        room[2 * size + 1] = value;
        size++;
        return null;
    }

    /** Removes the attribute; returns its value, or null when there was none. */
    Object remove(final String name)
    {
        if (!(slots instanceof Object[] pairs))
        {
            return map(slots).remove(name);
        }
        final int i = indexOf(pairs, name);
        if (i < 0)
        {
            return null;
        }
        final Object old = pairs[i + 1];
        System.arraycopy(pairs, i + 2, pairs, i, 2 * size - i - 2);
        size--;
        pairs[2 * size] = null;
        pairs[2 * size + 1] = null;
        return old;
    }

    /**
     * The name set first of those left, or null when there is none: removing the first name as many times as
     * {@link #size()} said empties the table in the order names were set, with no array copied for it.
     */
    String firstName()
    {
        if (!(slots instanceof Object[] pairs))
        {
            final Map<String, Object> all = map(slots);
            return all.isEmpty() ? null : all.keySet().iterator().next();
        }
        return 0 == size ? null : (String)pairs[0];
    }

    /** The names, as a new array (iterating it is safe while attributes are removed). */
    String[] names()
    {
        if (!(slots instanceof Object[] pairs))
        {
            return map(slots).keySet().toArray(new String[0]);
        }
        final String[] names = new String[size];
        for (int i = 0; i < size; i++)
        {
            names[i] = (String)pairs[2 * i];
        }
        return names;
    }

    /** The slot of the name {@code name} in {@code pairs}, or -1. */
    private int indexOf(final Object[] pairs, final String name)
    {
        for (int i = 0; i < 2 * size; i += 2)
        {
            if (pairs[i] == name || pairs[i].equals(name))
            {
                return i;
            }
        }
        return -1;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(final Object slots)
    {
        return (Map<String, Object>)slots;
    }
}
