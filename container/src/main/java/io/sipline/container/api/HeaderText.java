package io.sipline.container.api;

import io.sipline.container.address.SipAddresses;
import io.sipline.sip.message.HeaderName;

/**
 * Small readers and writers of name-addr / addr-spec header text (RFC 3261 §20.10 grammar) that the container needs
 * on its own path without building {@code Address} objects: the URI of a Contact or Route, the tag of a From or To,
 * a From or To with its tag replaced. Quoted display names and the part inside angle brackets are skipped when
 * looking for header parameters.
 * <p>
 * Threading: stateless.
 */
public final class HeaderText
{
    private HeaderText()
    {
    }

    /** The URI of a name-addr ({@code "Bob" <sip:b@h;lr>;p=1} gives {@code sip:b@h;lr}) or addr-spec (up to ';'). */
    public static String uri(final String value)
    {
        if (null == value)
        {
            return null;
        }
        final int open = angle(value);
        if (open >= 0)
        {
            final int close = value.indexOf('>', open + 1);
            return value.substring(open + 1, close < 0 ? value.length() : close).strip();
        }
        final int semicolon = value.indexOf(';');
        return (semicolon < 0 ? value : value.substring(0, semicolon)).strip();
    }

    /**
     * A URI parameter ({@code maddr}, {@code lr}, ours on a Route) of a URI without angle brackets, looked for from
     * {@code from} (past the user part); "" for a parameter without a value, null when absent.
     */
    public static String uriParam(final String uri, final int from, final String name)
    {
        final int end = firstOf(uri, from, "?>");
        int p = uri.indexOf(';', from);
        while (p >= 0 && p < end)
        {
            final int next = firstOf(uri, p + 1, ";?>");
            final int eq = uri.indexOf('=', p + 1);
            final int nameEnd = eq >= 0 && eq < next ? eq : next;
            if (nameEnd - p - 1 == name.length() && uri.regionMatches(true, p + 1, name, 0, name.length()))
            {
                return nameEnd == next ? "" : uri.substring(eq + 1, next);
            }
            p = next < end && uri.charAt(next) == ';' ? next : -1;
        }
        return null;
    }

    /**
     * A URI parameter of a Route value (name-addr) or of a bare URI, looked for past the user part: a routing token
     * of ours ({@code sipline-px}, {@code sipline-ar}); null when absent or empty. No String is made when the text does
     * not contain {@code name} at all.
     */
    public static String routeUriParam(final String routeOrUri, final String name)
    {
        if (null == routeOrUri || !routeOrUri.contains(name))
        {
            return null;
        }
        final String uri = routeOrUri.indexOf('<') >= 0 ? uri(routeOrUri) : routeOrUri;
        final String value = uriParam(uri, hostStart(uri), name);
        return null == value || value.isEmpty() ? null : value;
    }

    /** Where the host part of a sip/sips URI starts (after the user part), or 0 when it does not say. */
    public static int hostStart(final String uri)
    {
        final int colon = uri.indexOf(':');
        final int at = uri.indexOf('@');
        final int params = firstOf(uri, colon + 1, ";?>");
        return at >= 0 && at < params ? at + 1 : Math.max(0, colon + 1);
    }

    /** The first index at or after {@code from} of any of {@code chars}, or the length. */
    public static int firstOf(final String s, final int from, final String chars)
    {
        for (int i = from; i < s.length(); i++)
        {
            if (chars.indexOf(s.charAt(i)) >= 0)
            {
                return i;
            }
        }
        return s.length();
    }

    /** Where the header parameters start (the first ';' after the address), or the length. */
    public static int paramsStart(final String value)
    {
        int p = 0;
        final int open = angle(value);
        if (open >= 0)
        {
            final int close = value.indexOf('>', open + 1);
            p = close < 0 ? value.length() : close + 1;
        }
        final int semicolon = value.indexOf(';', p);
        return semicolon < 0 ? value.length() : semicolon;
    }

    /** A header parameter's value ({@code tag}), "" for a parameter without a value, null when absent. */
    public static String param(final String value, final String name)
    {
        if (null == value)
        {
            return null;
        }
        final int at = findParam(value, name);
        if (at < 0)
        {
            return null;
        }
        final int next = nextSemicolon(value, at + 1);
        int p = at + 1;
        while (p < next && value.charAt(p) != '=')
        {
            p++;
        }
        if (p >= next)
        {
            return "";
        }
        return unquote(value.substring(p + 1, next).strip());
    }

    /** Position of the ';' that starts the named header parameter, or -1. */
    private static int findParam(final String value, final String name)
    {
        int p = paramsStart(value);
        while (p < value.length())
        {
            final int next = nextSemicolon(value, p + 1);
            int k = p + 1;
            while (k < next && (value.charAt(k) == ' ' || value.charAt(k) == '\t'))
            {
                k++;
            }
            int e = k;
            while (e < next && value.charAt(e) != '=' && value.charAt(e) != ' ' && value.charAt(e) != '\t')
            {
                e++;
            }
            if (e - k == name.length() && value.regionMatches(true, k, name, 0, name.length()))
            {
                return p;
            }
            p = next;
        }
        return -1;
    }

    /** The value without the named header parameter. */
    public static String withoutParam(final String value, final String name)
    {
        final int at = findParam(value, name);
        if (at < 0)
        {
            return value;
        }
        final int next = nextSemicolon(value, at + 1);
        return next >= value.length() ? value.substring(0, at) : value.substring(0, at) + value.substring(next);
    }

    private static final String[] SMALL_DECIMALS = new String[256];

    static
    {
        for (int i = 0; i < SMALL_DECIMALS.length; i++)
        {
            SMALL_DECIMALS[i] = Integer.toString(i).intern();
        }
    }

    /** A small number as header text (Max-Forwards, ...), without a new String for 0..255. */
    public static String decimal(final int n)
    {
        return n >= 0 && n < SMALL_DECIMALS.length ? SMALL_DECIMALS[n] : Integer.toString(n);
    }

    /**
     * The party of entry {@code k} (From or To) of {@code h} without its tag, as {@link #withTag withTag(value, null)}
     * cuts it: a view of the section's bytes while the entry is a span of plain ASCII with nothing after its tag (no
     * String made; the bytes are a received message's, never written), else that text. The view is a
     * {@link TaggedParty} without tag, so that a From or To made of it without tag is that same object.
     */
    public static CharSequence partyWithoutTag(final MessageHeaders h, final HeaderName k)
    {
        return partyWithoutTag(h, h.find(k, 0));
    }

    /** {@link #partyWithoutTag(MessageHeaders, HeaderName)} of entry {@code i} (a From or To; -1: none). */
    public static CharSequence partyWithoutTag(final MessageHeaders h, final int i)
    {
        final long party = partySpan(h, i);
        if (party < 0)
        {
            return withTag(i < 0 ? null : h.value(i), null);
        }
        final TaggedParty view = TaggedParty.span(h.bytes(), (int)(party >>> 32), (int)party, null);
        return null != view ? view : new AsciiSpan(h.bytes(), (int)(party >>> 32), (int)party);
    }

    /**
     * {@link #partyWithoutTag(MessageHeaders, int) partyWithoutTag(h, i)} with {@code tag}: one object over the
     * section's bytes while the party is such a view, no view besides.
     */
    static TaggedParty partyWithTag(final MessageHeaders h, final int i, final CharSequence tag)
    {
        final long party = partySpan(h, i);
        final TaggedParty view = party < 0 ? null : TaggedParty.span(h.bytes(), (int)(party >>> 32), (int)party, tag);
        return null != view ? view : TaggedParty.ofParty(partyWithoutTag(h, i), tag);
    }

    /**
     * Where the party of entry {@code i} lies in the section's bytes, its tag cut ({@link SipAddresses#withoutTag}):
     * {@code start << 32 | end}; -1 when the entry is none, not a span, or not such a plain value.
     */
    private static long partySpan(final MessageHeaders h, final int i)
    {
        final long span = i < 0 ? -1 : h.valueSpan(i);
        return span < 0 ? -1 : SipAddresses.withoutTag(h.bytes(), (int)(span >>> 32), (int)span);
    }

    /**
     * Whether entry {@code i} (a From or To; -1: none) has a tag, found in its bytes while it is a span of plain
     * ASCII (no String made): 1 yes, 0 no; -1 when its text must be read instead (an edit, a folded or UTF-8 value,
     * parameters after the tag, no entry).
     */
    static int tagged(final MessageHeaders h, final int i)
    {
        final long span = i < 0 ? -1 : h.valueSpan(i);
        final long party = span < 0 ? -1 : SipAddresses.withoutTag(h.bytes(), (int)(span >>> 32), (int)span);
        return party < 0 ? -1 : (int)party == (int)span ? 0 : 1;
    }

    /** The value with its tag set to {@code tag} (or removed when null). */
    public static String withTag(final String value, final String tag)
    {
        final String bare = withoutParam(value, "tag");
        return null == tag ? bare : bare + ";tag=" + tag;
    }

    /** True when the value is a name-addr (has angle brackets). */
    public static boolean isNameAddr(final String value)
    {
        return angle(value) >= 0;
    }

    private static int angle(final String value)
    {
        boolean quoted = false;
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            if (c == '"' && (i == 0 || value.charAt(i - 1) != '\\'))
            {
                quoted = !quoted;
            }
            else if (!quoted && c == '<')
            {
                return i;
            }
            else if (!quoted && c == ';')
            {
                return -1;
            }
        }
        return -1;
    }

    private static int nextSemicolon(final String value, final int from)
    {
        boolean quoted = false;
        for (int i = from; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            if (c == '"')
            {
                quoted = !quoted;
            }
            else if (!quoted && c == ';')
            {
                return i;
            }
        }
        return value.length();
    }

    private static String unquote(final String s)
    {
        return s.length() >= 2 && s.charAt(0) == '"' && s.charAt(s.length() - 1) == '"' ? s.substring(1, s.length() - 1)
            : s;
    }
}
