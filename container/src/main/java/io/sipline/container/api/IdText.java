package io.sipline.container.api;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.shard.ShardIds;

/**
 * An id this container generated ({@link ShardIds}: marker, shard, node, thirteen random hex digits), kept as its two
 * numbers and written as ASCII straight into an outbound buffer: a local tag ({@code s0100…}, RFC 3261 §19.3: 52
 * random bits) or a Call-ID ({@code s0100…@host}, §8.1.1.4). A String of it is made only when someone reads it as one
 * (an application's {@code getCallId()}, a tag parameter), and not kept here: a call reads few of its ids as text,
 * and the holder that reads one keeps the String (a header section's value, the session's dialog, the application
 * session's id), so that every id made for a call is two numbers and a host, no field more.
 * <p>
 * A {@link CharSequence} of that text, so that a header section, a tagged party and the dialog record take it as any
 * text; reading it char by char makes no String. Immutable, so shared by messages of any thread; holds no buffer.
 */
public final class IdText implements WrittenText
{
    /** The shard and node ({@link ShardIds#origin()}). */
    private final int origin;
    /** The 52 random bits ({@link ShardIds#nextRandom()}). */
    private final long random;
    /** Null for a tag; for a Call-ID the host after its {@code @}. */
    private final String host;

    private IdText(final int origin, final long random, final String host)
    {
        this.origin = origin;
        this.random = random;
        this.host = host;
    }

    /** A tag of {@code origin} and {@code random}. */
    public static IdText tag(final int origin, final long random)
    {
        return new IdText(origin, random, null);
    }

    /** A Call-ID of {@code origin} and {@code random} at {@code host}. */
    public static IdText callId(final int origin, final long random, final String host)
    {
        return new IdText(origin, random, host);
    }

    /**
     * The tag whose text is {@code text} (ShardIds form: {@code s}, four and thirteen lowercase hex digits), or null
     * for any other text.
     */
    public static IdText parseTag(final CharSequence text)
    {
        if (null == text || text.length() != ShardIds.ID_LENGTH || text.charAt(0) != 's')
        {
            return null;
        }
        int origin = 0;
        long random = 0;
        for (int i = 1; i < ShardIds.ID_LENGTH; i++)
        {
            final char c = text.charAt(i);
            final int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0)
            {
                return null;
            }
            if (i < ShardIds.RANDOM_OFFSET)
            {
                origin = origin << 4 | d;
            }
            else
            {
                random = random << 4 | d;
            }
        }
        return tag(origin, random);
    }

    /**
     * The key a shard's table keeps a dialog under for this tag: the shard's and the random digits, as
     * {@link SessionTable} reads them from the tag's text.
     */
    long dialogKey()
    {
        return (long)(origin >>> 8) << 52 | random;
    }

    @Override
    public void writeTo(final ByteBuf out)
    {
        for (int i = 0; i < ShardIds.ID_LENGTH; i++)
        {
            out.writeByte(ShardIds.idChar(origin, random, i));
        }
        if (null != host)
        {
            out.writeByte('@');
            Utf8Text.write(out, host);
        }
    }

    /** Equal to another {@link IdText} of the same text (never to a String: a map keys ids by one kind). */
    @Override
    public boolean equals(final Object o)
    {
        return o instanceof IdText other && origin == other.origin && random == other.random
            && java.util.Objects.equals(host, other.host);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(random * 0x9E3779B97F4A7C15L) ^ origin ^ (null == host ? 0 : host.hashCode());
    }

    @Override
    public int length()
    {
        return ShardIds.ID_LENGTH + (null == host ? 0 : 1 + host.length());
    }

    @Override
    public char charAt(final int i)
    {
        if (i < ShardIds.ID_LENGTH)
        {
            return ShardIds.idChar(origin, random, i);
        }
        if (null == host)
        {
            throw new IndexOutOfBoundsException(i);
        }
        return i == ShardIds.ID_LENGTH ? '@' : host.charAt(i - ShardIds.ID_LENGTH - 1);
    }

    @Override
    public CharSequence subSequence(final int start, final int end)
    {
        return toString().subSequence(start, end);
    }

    /** The id as text: a new String at each call (its reader keeps it when it reads it again). */
    @Override
    public String toString()
    {
        final StringBuilder b = ShardIds.appendId(new StringBuilder(length()), origin, random);
        if (null != host)
        {
            b.append('@').append(host);
        }
        return b.toString();
    }
}
