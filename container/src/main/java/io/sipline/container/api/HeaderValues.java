package io.sipline.container.api;

import java.nio.charset.StandardCharsets;

import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;

/**
 * The rules {@link MessageHeaders} reads header values by where they are text: a token list searched ignoring case,
 * the leading number of a value (a CSeq's), and a received value made into text with its line folding replaced by
 * one space (RFC 3261 §7.3.1), the canonical names it writes, and where a received extension header's name is.
 * <p>
 * Stateless: pure functions; any thread. Byte arrays are borrowed, never kept.
 */
final class HeaderValues
{
    private HeaderValues()
    {
    }

    /** Whether the comma-separated {@code list} has {@code token}, ignoring case and white space around items. */
    static boolean listContains(final String list, final String token)
    {
        int p = 0;
        while (p <= list.length())
        {
            int q = list.indexOf(',', p);
            q = q < 0 ? list.length() : q;
            int ts = p;
            int te = q;
            while (ts < te && Character.isWhitespace(list.charAt(ts)))
            {
                ts++;
            }
            while (te > ts && Character.isWhitespace(list.charAt(te - 1)))
            {
                te--;
            }
            if (te - ts == token.length() && list.regionMatches(true, ts, token, 0, token.length()))
            {
                return true;
            }
            p = q + 1;
        }
        return false;
    }

    /** Digits after optional white space, from {@code bytes} or else {@code text}; -1 when there are none. */
    static long leadingNumber(final byte[] bytes, final String text, final int from, final int to)
    {
        long n = 0;
        int digits = 0;
        for (int p = from; p < to && digits < 18; p++)
        {
            final int c = null != bytes ? bytes[p] : text.charAt(p);
            if (c >= '0' && c <= '9')
            {
                n = n * 10 + (c - '0');
                digits++;
            }
            else if (digits > 0 || (c != ' ' && c != '\t'))
            {
                break;
            }
        }
        return 0 == digits ? -1 : n;
    }

    /** The value at {@code [start, end)} of {@code b} as text: ASCII or UTF-8, each line fold one space. */
    static String unfold(final byte[] b, final int start, final int end)
    {
        boolean folded = false;
        boolean ascii = true;
        for (int p = start; p < end; p++)
        {
            if (b[p] == '\r' || b[p] == '\n')
            {
                folded = true;
            }
            else if (b[p] < 0)
            {
                ascii = false;
            }
        }
        if (!folded)
        {
            return new String(b, start, end - start, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
        }
        final String raw = new String(b, start, end - start, StandardCharsets.UTF_8);
        return raw.replaceAll("[ \\t]*\\r?\\n[ \\t]+", " ");
    }

    /** The canonical name of each {@link HeaderName} as ASCII bytes, by ordinal. */
    static byte[][] canonicalNames()
    {
        final HeaderName[] all = HeaderName.values();
        final byte[][] out = new byte[all.length][];
        for (final HeaderName k : all)
        {
            out[k.ordinal()] = k.canonical().getBytes(StandardCharsets.US_ASCII);
        }
        return out;
    }

    /**
     * Where the name of a spanned header whose value starts at {@code valueStart} of {@code bytes} ends: the value
     * follows the name, optional white space, the colon and optional white space or a line fold (RFC 3261 §7.3.1
     * HCOLON, SWS), so the name is found from the value's start backwards; the parser splits no extension header into
     * several values.
     */
    static int nameEnd(final byte[] bytes, final int valueStart)
    {
        int p = valueStart - 1;
        while (p > 0 && bytes[p] != ':')
        {
            p--;
        }
        p--;
        while (p > 0 && Ascii.isWsp(bytes[p]))
        {
            p--;
        }
        return p + 1;
    }

    /** Where a header name ending at {@code end} of {@code bytes} starts: after the line break before it. */
    static int nameStart(final byte[] bytes, final int end)
    {
        int p = end;
        while (p > 0 && Ascii.isTokenChar(bytes[p - 1]))
        {
            p--;
        }
        return p;
    }
}
