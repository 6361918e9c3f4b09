package io.sipline.sip.shard;

import java.util.SplittableRandom;

/**
 * Identifiers that the stack generates (Via branch, From/To tags, Call-ID of a new leg) and that carry the index of
 * the shard and the node that own them, so that a response or an in-dialog request finds its shard without a lookup
 * and any node of a cluster can tell whose call a message belongs to.
 *
 * <pre>
 *   branch:   z9hG4bK s SS NN RRRRRRRRRRRRR     (RFC 3261 §8.1.1.7 magic cookie, then 18 characters)
 *   tag:      s SS NN RRRRRRRRRRRRR
 *   Call-ID:  s SS NN RRRRRRRRRRRRR @host
 *             | |  |  \___________/
 *             | |  |   13 hex digits: 52 random bits, unique per generator
 *             | |  node of the cluster, 2 hex digits (0..255; 0 outside a cluster)
 *             | shard index, 2 hex digits (0..255)
 *             marker: an id this stack made
 * </pre>
 *
 * <p>Ids are written as bytes into a caller's buffer or {@code StringBuilder}; decoding reads them where they lie and
 * allocates nothing. One generator per shard; not thread-safe (owned by the shard's thread).
 */
public final class ShardIds
{
    /** Characters of an id after any branch cookie: marker, two shard digits, two node digits, thirteen random. */
    public static final int ID_LENGTH = 18;
    public static final int MAX_SHARDS = 256;
    public static final int MAX_NODES = 256;
    /** Offset in an id of the first of its thirteen random digits. */
    public static final int RANDOM_OFFSET = 5;

    /** The 52 bits of an id's thirteen random hex digits. */
    private static final long RANDOM_MASK = (1L << 52) - 1;
    private static final byte MARKER = 's';
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] COOKIE = "z9hG4bK".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final int shard;
    private final int node;
    private final SplittableRandom random;

    /**
     * A generator of node 0 (a process outside a cluster).
     *
     * @param shard the owning shard, 0..255.
     * @param seed  seeds this generator's random stream; give each shard and each process a different one.
     */
    public ShardIds(final int shard, final long seed)
    {
        this(shard, 0, seed);
    }

    /**
     * @param shard the owning shard, 0..255.
     * @param node  the owning node of the cluster, 0..255.
     * @param seed  seeds this generator's random stream; give each shard and each process a different one.
     */
    public ShardIds(final int shard, final int node, final long seed)
    {
        if (shard < 0 || shard >= MAX_SHARDS)
        {
            throw new IllegalArgumentException("shard must be 0.." + (MAX_SHARDS - 1) + ": " + shard);
        }
        if (node < 0 || node >= MAX_NODES)
        {
            throw new IllegalArgumentException("node must be 0.." + (MAX_NODES - 1) + ": " + node);
        }
        this.shard = shard;
        this.node = node;
        this.random = new SplittableRandom(seed ^ ((long)shard << 56) ^ ((long)node << 48));
    }

    public int shard()
    {
        return shard;
    }

    public int node()
    {
        return node;
    }

    /** Writes a fresh 18-character id (no cookie) into {@code out} at {@code offset}; returns offset + 18. */
    public int writeId(final byte[] out, final int offset)
    {
        out[offset] = MARKER;
        out[offset + 1] = HEX[(shard >>> 4) & 0xF];
        out[offset + 2] = HEX[shard & 0xF];
        out[offset + 3] = HEX[(node >>> 4) & 0xF];
        out[offset + 4] = HEX[node & 0xF];
        final long r = random.nextLong();
        for (int i = 0; i < 13; i++)
        {
            out[offset + RANDOM_OFFSET + i] = HEX[(int)(r >>> (4 * (12 - i))) & 0xF];
        }
        return offset + ID_LENGTH;
    }

    /** Appends a fresh 18-character id (a tag, or the front of a Call-ID) to {@code sb}. */
    public StringBuilder appendId(final StringBuilder sb)
    {
        return appendId(sb, origin(), random.nextLong());
    }

    /** Appends a fresh branch: the magic cookie and an id (RFC 3261 §8.1.1.7). */
    public StringBuilder appendBranch(final StringBuilder sb)
    {
        sb.append("z9hG4bK");
        return appendId(sb);
    }

    /**
     * The random part of a fresh id, kept as a number by a caller that writes the id later (and again) with
     * {@link #appendBranch(StringBuilder, int, long)}, so that no String is made for it.
     */
    public long nextRandom()
    {
        return random.nextLong() & RANDOM_MASK;
    }

    /** This generator's shard and node as one number, {@code shard << 8 | node}, for the static writers. */
    public int origin()
    {
        return shard << 8 | node;
    }

    /** Appends the id of {@code origin} ({@link #origin()}) and {@code randomBits} ({@link #nextRandom()}). */
    public static StringBuilder appendId(final StringBuilder sb, final int origin, final long randomBits)
    {
        final int s = origin >>> 8;
        final int n = origin & 0xFF;
        sb.append((char)MARKER).append((char)HEX[(s >>> 4) & 0xF]).append((char)HEX[s & 0xF])
            .append((char)HEX[(n >>> 4) & 0xF]).append((char)HEX[n & 0xF]);
        for (int i = 0; i < 13; i++)
        {
            sb.append((char)HEX[(int)(randomBits >>> (4 * (12 - i))) & 0xF]);
        }
        return sb;
    }

    /**
     * Character {@code i} (0..{@link #ID_LENGTH}) of the id of {@code origin} and {@code randomBits}, as
     * {@link #appendId(StringBuilder, int, long)} writes it: so that an id kept as its numbers is read or written
     * without a String.
     */
    public static char idChar(final int origin, final long randomBits, final int i)
    {
        if (0 == i)
        {
            return (char)MARKER;
        }
        if (i < RANDOM_OFFSET)
        {
            return (char)HEX[(origin >>> (4 * (RANDOM_OFFSET - 1 - i))) & 0xF];
        }
        if (i < ID_LENGTH)
        {
            return (char)HEX[(int)(randomBits >>> (4 * (ID_LENGTH - 1 - i))) & 0xF];
        }
        throw new IndexOutOfBoundsException(i);
    }

    /** Appends the magic cookie and the id of {@code origin} and {@code randomBits} (RFC 3261 §8.1.1.7). */
    public static StringBuilder appendBranch(final StringBuilder sb, final int origin, final long randomBits)
    {
        sb.append("z9hG4bK");
        return appendId(sb, origin, randomBits);
    }

    /**
     * The shard encoded in an id this stack made, or -1 when the span is not such an id. Accepts a bare id, a
     * branch (cookie first) and a Call-ID ({@code id@host}).
     */
    public static int shardOf(final byte[] buf, final int start, final int end)
    {
        final int p = idStart(buf, start, end);
        return p < 0 ? -1 : (hex(buf[p + 1]) << 4) | hex(buf[p + 2]);
    }

    /**
     * The cluster node encoded in an id this stack made, or -1 when the span is not such an id. Accepts what
     * {@link #shardOf} accepts.
     */
    public static int nodeOf(final byte[] buf, final int start, final int end)
    {
        final int p = idStart(buf, start, end);
        return p < 0 ? -1 : (hex(buf[p + 3]) << 4) | hex(buf[p + 4]);
    }

    /** The node encoded in an id held as text ({@link #nodeOf(byte[], int, int)}), or -1; allocates nothing. */
    public static int nodeOf(final CharSequence id)
    {
        if (null == id)
        {
            return -1;
        }
        final int end = id.length();
        int p = 0;
        if (end >= COOKIE.length + ID_LENGTH && startsWithCookie(id))
        {
            p = COOKIE.length;
        }
        if (end - p < ID_LENGTH || id.charAt(p) != MARKER || (end - p > ID_LENGTH && id.charAt(p + ID_LENGTH) != '@'))
        {
            return -1;
        }
        for (int i = p + 1; i < p + ID_LENGTH; i++)
        {
            if (hex(id.charAt(i)) < 0)
            {
                return -1;
            }
        }
        return (hex(id.charAt(p + 3)) << 4) | hex(id.charAt(p + 4));
    }

    /** Where the 18-character id starts in {@code [start, end)} (after any cookie), or -1 when it is not an id. */
    private static int idStart(final byte[] buf, final int start, final int end)
    {
        int p = start;
        if (end - p >= COOKIE.length + ID_LENGTH && startsWithCookie(buf, p))
        {
            p += COOKIE.length;
        }
        if (end - p < ID_LENGTH || buf[p] != MARKER)
        {
            return -1;
        }
        for (int i = p + 1; i < p + ID_LENGTH; i++)
        {
            if (hex(buf[i]) < 0)
            {
                return -1;
            }
        }
        if (end - p > ID_LENGTH && buf[p + ID_LENGTH] != '@')
        {
            return -1;
        }
        return p;
    }

    /**
     * The shard that owns a call that arrives from outside: {@code hash(Call-ID) mod shards}. Every
     * datagram of the call hashes the same, whichever socket and shard read it.
     */
    public static int shardForCallId(final byte[] buf, final int start, final int end, final int shards)
    {
        int h = 0x811C9DC5;
        for (int i = start; i < end; i++)
        {
            h ^= buf[i] & 0xFF;
            h *= 0x01000193;
        }
        return Math.floorMod(h ^ (h >>> 16), shards);
    }

    private static boolean startsWithCookie(final byte[] buf, final int p)
    {
        for (int i = 0; i < COOKIE.length; i++)
        {
            if (buf[p + i] != COOKIE[i])
            {
                return false;
            }
        }
        return true;
    }

    private static boolean startsWithCookie(final CharSequence id)
    {
        for (int i = 0; i < COOKIE.length; i++)
        {
            if (id.charAt(i) != COOKIE[i])
            {
                return false;
            }
        }
        return true;
    }

    private static int hex(final int b)
    {
        if (b >= '0' && b <= '9')
        {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f')
        {
            return b - 'a' + 10;
        }
        return -1;
    }
}
