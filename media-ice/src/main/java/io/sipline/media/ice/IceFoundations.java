package io.sipline.media.ice;

import java.util.Arrays;

/**
 * Assigns local foundations (RFC 8445 §5.1.1.3): two candidates share a foundation when they have the same type, the
 * same base IP address (ports ignored), the same STUN/TURN server IP address (for server-reflexive and relayed
 * candidates) and the same transport (always UDP here). Foundations are the short decimal strings "1", "2", ...,
 * taken from a static table, so assigning one allocates nothing.
 *
 * <p>The tables start at {@link #INITIAL_CAPACITY} foundations (an agent with host, server-reflexive and relayed
 * candidates on one base has three) and double on demand up to the capacity, so a session retains only what it uses.
 *
 * <p>Not thread-safe; owned by one media thread (one per ICE session). Allocates only when a table grows (setup).
 */
public final class IceFoundations
{
    private static final String[] TEXT = new String[256];

    static
    {
        for (int i = 0; i < TEXT.length; i++)
        {
            TEXT[i] = Integer.toString(i + 1);
        }
    }

    /** Foundations the tables hold before they first grow. */
    static final int INITIAL_CAPACITY = 4;

    private final int capacity;
    private byte[] types;
    private byte[] baseFamilies;
    private long[] baseHi;
    private long[] baseLo;
    private byte[] serverFamilies;
    private long[] serverHi;
    private long[] serverLo;
    private int count;

    /**
     * @param capacity distinct foundations kept, 1..256 (the local candidate limit is enough).
     */
    public IceFoundations(final int capacity)
    {
        if (capacity < 1 || capacity > TEXT.length)
        {
            throw new IllegalArgumentException("capacity out of 1..256: " + capacity);
        }
        this.capacity = capacity;
        final int initial = Math.min(INITIAL_CAPACITY, capacity);
        types = new byte[initial];
        baseFamilies = new byte[initial];
        baseHi = new long[initial];
        baseLo = new long[initial];
        serverFamilies = new byte[initial];
        serverHi = new long[initial];
        serverLo = new long[initial];
    }

    /**
     * The foundation of a local candidate whose type and base are already set.
     *
     * @param candidate    the candidate (type and base read).
     * @param serverFamily {@link IceCandidate#FAMILY_NONE} for host and peer-reflexive candidates, else the STUN or
     *                     TURN server's family.
     * @param serverHi     the server address, high word.
     * @param serverLo     the server address, low word.
     * @return the foundation string, shared by every candidate with the same key.
     * @throws IllegalStateException if more distinct foundations than the capacity are needed.
     */
    public String foundationOf(final IceCandidate candidate, final byte serverFamily, final long serverHi,
        final long serverLo)
    {
        final byte type = (byte) candidate.type().ordinal();
        final boolean hasServer = candidate.type() == IceCandidateType.SERVER_REFLEXIVE
            || candidate.type() == IceCandidateType.RELAYED;
        final byte family = hasServer ? serverFamily : IceCandidate.FAMILY_NONE;
        final long hi = hasServer ? serverHi : 0;
        final long lo = hasServer ? serverLo : 0;
        for (int i = 0; i < count; i++)
        {
            if (types[i] == type && baseFamilies[i] == candidate.baseFamily() && baseHi[i] == candidate.baseHi()
                && baseLo[i] == candidate.baseLo() && serverFamilies[i] == family && this.serverHi[i] == hi
                && this.serverLo[i] == lo)
            {
                return TEXT[i];
            }
        }
        if (count == capacity)
        {
            throw new IllegalStateException("more than " + capacity + " local foundations");
        }
        if (count == types.length)
        {
            grow();
        }
        types[count] = type;
        baseFamilies[count] = candidate.baseFamily();
        baseHi[count] = candidate.baseHi();
        baseLo[count] = candidate.baseLo();
        serverFamilies[count] = family;
        this.serverHi[count] = hi;
        this.serverLo[count] = lo;
        return TEXT[count++];
    }

    /**
     * @return distinct foundations assigned so far.
     */
    public int count()
    {
        return count;
    }

    /**
     * Forgets every foundation (ICE restart, RFC 8445 §9).
     */
    public void clear()
    {
        count = 0;
    }

    private void grow()
    {
        final int length = Math.min(2 * types.length, capacity);
        types = Arrays.copyOf(types, length);
        baseFamilies = Arrays.copyOf(baseFamilies, length);
        baseHi = Arrays.copyOf(baseHi, length);
        baseLo = Arrays.copyOf(baseLo, length);
        serverFamilies = Arrays.copyOf(serverFamilies, length);
        serverHi = Arrays.copyOf(serverHi, length);
        serverLo = Arrays.copyOf(serverLo, length);
    }
}
