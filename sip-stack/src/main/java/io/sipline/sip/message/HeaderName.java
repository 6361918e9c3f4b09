package io.sipline.sip.message;

/**
 * The header names the stack knows, with their compact forms (RFC 3261 §7.3.3, §20 and the extension RFCs that
 * registered one), and whether the header's grammar is a comma-separated list of values (RFC 3261 §7.3.1), so the
 * parser can index each value on its own. Names are matched case-insensitively, as bytes, without a String.
 *
 * <p>Any other header is {@link #UNKNOWN} and is kept as raw name and value.
 *
 * <p>Immutable; thread-safe.
 */
public enum HeaderName
{
    /** Any header that is not in this list; compare its name bytes instead. */
    UNKNOWN("", (char)0, false),
    VIA("Via", 'v', true),
    FROM("From", 'f', false),
    TO("To", 't', false),
    CALL_ID("Call-ID", 'i', false),
    CSEQ("CSeq", (char)0, false),
    MAX_FORWARDS("Max-Forwards", (char)0, false),
    CONTACT("Contact", 'm', true),
    CONTENT_LENGTH("Content-Length", 'l', false),
    CONTENT_TYPE("Content-Type", 'c', false),
    CONTENT_ENCODING("Content-Encoding", 'e', true),
    CONTENT_DISPOSITION("Content-Disposition", (char)0, false),
    CONTENT_LANGUAGE("Content-Language", (char)0, true),
    ROUTE("Route", (char)0, true),
    RECORD_ROUTE("Record-Route", (char)0, true),
    EXPIRES("Expires", (char)0, false),
    MIN_EXPIRES("Min-Expires", (char)0, false),
    SUBJECT("Subject", 's', false),
    SUPPORTED("Supported", 'k', true),
    REQUIRE("Require", (char)0, true),
    PROXY_REQUIRE("Proxy-Require", (char)0, true),
    UNSUPPORTED("Unsupported", (char)0, true),
    ALLOW("Allow", (char)0, true),
    ACCEPT("Accept", (char)0, true),
    ACCEPT_ENCODING("Accept-Encoding", (char)0, true),
    ACCEPT_LANGUAGE("Accept-Language", (char)0, true),
    ALERT_INFO("Alert-Info", (char)0, true),
    CALL_INFO("Call-Info", (char)0, true),
    ERROR_INFO("Error-Info", (char)0, true),
    IN_REPLY_TO("In-Reply-To", (char)0, true),
    AUTHORIZATION("Authorization", (char)0, false),
    PROXY_AUTHORIZATION("Proxy-Authorization", (char)0, false),
    WWW_AUTHENTICATE("WWW-Authenticate", (char)0, false),
    PROXY_AUTHENTICATE("Proxy-Authenticate", (char)0, false),
    AUTHENTICATION_INFO("Authentication-Info", (char)0, false),
    DATE("Date", (char)0, false),
    TIMESTAMP("Timestamp", (char)0, false),
    RETRY_AFTER("Retry-After", (char)0, false),
    SERVER("Server", (char)0, false),
    USER_AGENT("User-Agent", (char)0, false),
    WARNING("Warning", (char)0, true),
    ORGANIZATION("Organization", (char)0, false),
    PRIORITY("Priority", (char)0, false),
    REPLY_TO("Reply-To", (char)0, false),
    MIME_VERSION("MIME-Version", (char)0, false),
    /** RFC 3262. */
    RSEQ("RSeq", (char)0, false),
    /** RFC 3262. */
    RACK("RAck", (char)0, false),
    /** RFC 6665. */
    EVENT("Event", 'o', false),
    /** RFC 6665. */
    ALLOW_EVENTS("Allow-Events", 'u', true),
    /** RFC 6665. */
    SUBSCRIPTION_STATE("Subscription-State", (char)0, false),
    /** RFC 3515. */
    REFER_TO("Refer-To", 'r', false),
    /** RFC 3892. */
    REFERRED_BY("Referred-By", 'b', false),
    /** RFC 3891. */
    REPLACES("Replaces", (char)0, false),
    /** RFC 3911. */
    JOIN("Join", (char)0, false),
    /** RFC 4028. */
    SESSION_EXPIRES("Session-Expires", 'x', false),
    /** RFC 4028. */
    MIN_SE("Min-SE", (char)0, false),
    /** RFC 3327. */
    PATH("Path", (char)0, true),
    /** RFC 3608. */
    SERVICE_ROUTE("Service-Route", (char)0, true),
    /** RFC 3325. */
    P_ASSERTED_IDENTITY("P-Asserted-Identity", (char)0, true),
    /** RFC 3325. */
    P_PREFERRED_IDENTITY("P-Preferred-Identity", (char)0, true),
    /** RFC 3326. */
    REASON("Reason", (char)0, true),
    /** RFC 3903. */
    SIP_ETAG("SIP-ETag", (char)0, false),
    /** RFC 3903. */
    SIP_IF_MATCH("SIP-If-Match", (char)0, false),
    /** RFC 3841. */
    ACCEPT_CONTACT("Accept-Contact", 'a', true),
    /** RFC 3841. */
    REJECT_CONTACT("Reject-Contact", 'j', true),
    /** RFC 3841. */
    REQUEST_DISPOSITION("Request-Disposition", 'd', true),
    /** RFC 8224. */
    IDENTITY("Identity", 'y', false),
    /** RFC 5626. */
    FLOW_TIMER("Flow-Timer", (char)0, false);

    private static final HeaderName[] VALUES = values();
    private static final HeaderName[] BY_COMPACT = new HeaderName[128];
    private static final int TABLE_MASK = 255;
    private static final HeaderName[] TABLE = new HeaderName[TABLE_MASK + 1];

    static
    {
        for (final HeaderName h : VALUES)
        {
            if (h == UNKNOWN)
            {
                continue;
            }
            if (h.compactForm != 0)
            {
                BY_COMPACT[h.compactForm] = h;
            }
            int slot = shapeHash(h.lowerName, 0, h.lowerName.length) & TABLE_MASK;
            while (null != TABLE[slot])
            {
                slot = (slot + 1) & TABLE_MASK;
            }
            TABLE[slot] = h;
        }
    }

    private final String canonical;
    private final byte[] lowerName;
    private final byte[] canonicalBytes;
    private final char compactForm;
    private final boolean list;

    HeaderName(final String canonical, final char compactForm, final boolean list)
    {
        this.canonical = canonical;
        this.lowerName = Ascii.lowerBytes(canonical);
        this.canonicalBytes = canonical.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        this.compactForm = compactForm;
        this.list = list;
    }

    /** The name as RFC 3261 writes it, e.g. {@code Call-ID}. */
    public String canonical()
    {
        return canonical;
    }

    /** The canonical name as ASCII bytes; do not modify. */
    byte[] canonicalBytes()
    {
        return canonicalBytes;
    }

    /** The compact form (RFC 3261 §7.3.3), or 0 when the header has none. */
    public char compactForm()
    {
        return compactForm;
    }

    /** True when the grammar allows several comma-separated values in one header line (RFC 3261 §7.3.1). */
    public boolean isList()
    {
        return list;
    }

    /**
     * True for the lists whose values the stack edits or routes on one by one (Via, Route, Record-Route, Contact,
     * Path, and the other address lists): the parser gives each value its own index entry. Token lists (Allow,
     * Supported, Require, Accept, ...) stay one entry per line, read with {@link SipMessage#containsToken}: nobody
     * needs them value by value on the hot path, and splitting them cost a tenth of a parse.
     */
    public boolean isSplitEagerly()
    {
        return list && (this == VIA || this == CONTACT || this == ROUTE || this == RECORD_ROUTE || this == PATH
            || this == SERVICE_ROUTE || this == P_ASSERTED_IDENTITY || this == P_PREFERRED_IDENTITY
            || this == ALERT_INFO || this == CALL_INFO || this == ERROR_INFO || this == ACCEPT_CONTACT
            || this == REJECT_CONTACT);
    }

    /** Looks up a header name span, case-insensitively, with compact forms; {@link #UNKNOWN} when not known. */
    public static HeaderName lookup(final byte[] buf, final int start, final int end)
    {
        final int len = end - start;
        if (len == 1)
        {
            final int c = Ascii.lower(buf[start]) & 0xFF;
            final HeaderName h = c < 128 ? BY_COMPACT[c] : null;
            return null == h ? UNKNOWN : h;
        }
        if (len == 0)
        {
            return UNKNOWN;
        }
        int slot = shapeHash(buf, start, end) & TABLE_MASK;
        HeaderName h;
        while (null != (h = TABLE[slot]))
        {
            // Most peers write the canonical case: an exact (vectorised) comparison first, then the general one.
            if (h.lowerName.length == len && (java.util.Arrays.equals(buf, start, end, h.canonicalBytes, 0, len)
                || Ascii.equalsIgnoreCase(buf, start, end, h.lowerName)))
            {
                return h;
            }
            slot = (slot + 1) & TABLE_MASK;
        }
        return UNKNOWN;
    }

    /**
     * A hash of a name's length and its first, middle and last letters, case-insensitively: O(1) per header
     * instead of a multiply per byte, and distinct enough for this table that a probe rarely takes two steps.
     */
    private static int shapeHash(final byte[] buf, final int start, final int end)
    {
        final int len = end - start;
        return shapeHash(len, Ascii.lower(buf[start]), Ascii.lower(buf[start + (len >> 1)]), Ascii.lower(buf[end - 1]));
    }

    private static int shapeHash(final int len, final int first, final int middle, final int last)
    {
        final int h = (len * 0x9E3779B1) ^ (first * 0x85EBCA6B) ^ (middle * 0xC2B2AE35) ^ (last * 0x27D4EB2F);
        return h ^ (h >>> 15);
    }

    /** {@code c} in lower case when it is an ASCII letter; any other char as it is. */
    private static int lowerAscii(final char c)
    {
        return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
    }

    /**
     * Looks up a name given as text (e.g. from an application), case-insensitively in ASCII (a header name is a token,
     * RFC 3261 §25.1), with compact forms; by the same table as the bytes of a received name. Allocates nothing.
     */
    public static HeaderName lookup(final CharSequence name)
    {
        final int len = name.length();
        if (len == 1)
        {
            final char c = Character.toLowerCase(name.charAt(0));
            final HeaderName h = c < 128 ? BY_COMPACT[c] : null;
            return null == h ? UNKNOWN : h;
        }
        if (len == 0)
        {
            return UNKNOWN;
        }
        int slot = shapeHash(len, lowerAscii(name.charAt(0)), lowerAscii(name.charAt(len >> 1)),
            lowerAscii(name.charAt(len - 1))) & TABLE_MASK;
        HeaderName h;
        while (null != (h = TABLE[slot]))
        {
            if (h.lowerName.length == len && equalsLower(name, h.lowerName))
            {
                return h;
            }
            slot = (slot + 1) & TABLE_MASK;
        }
        return UNKNOWN;
    }

    /** Whether {@code name} is {@code lower} (ASCII, lower case, as long as {@code name}) in any case. */
    private static boolean equalsLower(final CharSequence name, final byte[] lower)
    {
        for (int i = 0; i < lower.length; i++)
        {
            if (lowerAscii(name.charAt(i)) != lower[i])
            {
                return false;
            }
        }
        return true;
    }
}
