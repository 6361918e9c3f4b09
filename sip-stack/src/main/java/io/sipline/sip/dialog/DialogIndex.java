package io.sipline.sip.dialog;

import java.util.Arrays;

/**
 * An open-addressing map from a 64-bit hash to {@link Dialog}s, with linear probing and backward-shift deletion (no
 * tombstones). Several entries may share a key (two ids whose hashes collide, or the members of a dialog set), so a
 * lookup walks the probe sequence with {@link #first} and {@link #next} and the caller compares bytes on each hit.
 * No boxing, no iterator, no entry objects; it allocates only when it grows past its load factor (one half).
 *
 * <p>Not thread-safe; owned by one shard.
 */
final class DialogIndex
{
    private long[] keys;
    private Dialog[] values;
    private int mask;
    private int size;

    DialogIndex(final int expected)
    {
        int capacity = 16;
        while (capacity < expected * 2)
        {
            capacity <<= 1;
        }
        keys = new long[capacity];
        values = new Dialog[capacity];
        mask = capacity - 1;
    }

    int size()
    {
        return size;
    }

    int capacity()
    {
        return values.length;
    }

    void put(final long key, final Dialog d)
    {
        if ((size + 1) * 2 > values.length)
        {
            grow();
        }
        int slot = home(key);
        while (null != values[slot])
        {
            slot = (slot + 1) & mask;
        }
        keys[slot] = key;
        values[slot] = d;
        size++;
    }

    /** The first slot holding {@code key}, or -1. */
    int first(final long key)
    {
        return scan(key, home(key));
    }

    /** The next slot after {@code slot} holding {@code key}, or -1. */
    int next(final long key, final int slot)
    {
        return scan(key, (slot + 1) & mask);
    }

    Dialog valueAt(final int slot)
    {
        return values[slot];
    }

    /** Points the entry that holds {@code old} under {@code key} at {@code replacement}; false when absent. */
    boolean replace(final long key, final Dialog old, final Dialog replacement)
    {
        for (int s = first(key); s >= 0; s = next(key, s))
        {
            if (values[s] == old)
            {
                values[s] = replacement;
                return true;
            }
        }
        return false;
    }

    /** Removes the entry holding exactly {@code d} under {@code key}; false when absent. */
    boolean remove(final long key, final Dialog d)
    {
        for (int s = first(key); s >= 0; s = next(key, s))
        {
            if (values[s] == d)
            {
                delete(s);
                return true;
            }
        }
        return false;
    }

    private int scan(final long key, final int from)
    {
        int slot = from;
        while (null != values[slot])
        {
            if (keys[slot] == key)
            {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    private int home(final long key)
    {
        return (int)(key ^ (key >>> 32)) & mask;
    }

    /** Empties a slot and shifts back later entries of the run whose home is at or before it (Knuth 6.4, R). */
    private void delete(final int slot)
    {
        int hole = slot;
        int j = slot;
        while (true)
        {
            j = (j + 1) & mask;
            if (null == values[j])
            {
                break;
            }
            final int h = home(keys[j]);
            // the entry at j may move into the hole when its home is not cyclically within (hole, j]
            final boolean between = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
            if (!between)
            {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        keys[hole] = 0;
        values[hole] = null;
        size--;
    }

    private void grow()
    {
        final long[] oldKeys = keys;
        final Dialog[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new Dialog[oldValues.length * 2];
        mask = values.length - 1;
        size = 0;
        for (int i = 0; i < oldValues.length; i++)
        {
            if (null != oldValues[i])
            {
                put(oldKeys[i], oldValues[i]);
            }
        }
        Arrays.fill(oldValues, null);
    }
}
