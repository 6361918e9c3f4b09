package io.sipline.container.address;

import java.nio.charset.StandardCharsets;

import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.URI;

/**
 * A JSR 289 {@link Address}: an optional display name, a URI and header parameters (RFC 3261 §25.1
 * {@code (name-addr / addr-spec) *(SEMI generic-param)}), or the Contact wildcard {@code *} (§20.10).
 *
 * <p>Wire form ({@link #toString()}): the display name bare when it is a run of tokens separated by single spaces,
 * else as a quoted-string with {@code "} and {@code \} escaped; the URI in angle brackets when there is a display
 * name or the URI holds a {@code ,}, {@code ;} or {@code ?} (§20.10: otherwise its parameters would read as header
 * parameters), bare otherwise; then the header parameters.
 *
 * <p>Equality: JSR 289 {@code Address.equals} defers to RFC 3261 (§20.20 From, §20.39 To: "their URIs match, and
 * their parameters match"; extension parameters present in only one are ignored, the display name and angle
 * brackets do not matter). The parameters RFC 3261 defines for address headers ({@code tag}, {@code q},
 * {@code expires}) must be in both or in neither. Like URI equality this is not transitive; {@link #hashCode()}
 * hashes the URI and the defined parameters only, which keeps it consistent with equals.
 *
 * <p>{@link #getURI()} returns the URI itself, not a copy: changing it changes this address (unless this address is
 * read-only, whose URI is read-only too). {@link #clone()} is a deep copy without the {@code tag} parameter, as the
 * JSR 289 javadoc of {@code Address.clone} requires (so that the clone can be the From of a new request);
 * {@link #copy()} keeps the tag.
 *
 * <p>A received message's From or To is a {@link ReceivedParty}, parsed on first use.
 *
 * <p>Threading: not thread-safe; one application thread at a time. Read-only copies are immutable.
 */
public sealed class AddressImpl extends AbstractParameterable implements Address permits ReceivedParty
{
    private static final String EXPIRES = "expires";
    private static final String Q = "q";
    /** Parameters RFC 3261 defines for address headers: compared even when only one side has them. */
    private static final String[] DEFINED = {TAG, Q, EXPIRES};

    /**
     * The display name: a String, or as parsed from a header its UTF-8 bytes (its own array, never written), made
     * into the String when first read, so that an address whose name no one reads costs no String object; or null.
     */
    Object displayName;
    /** The URI; null for the wildcard, and in a {@link ReceivedParty} until it is first asked for. */
    URI uri;

    AddressImpl(final String displayName, final URI uri, final String[] params, final int paramCount,
        final Protection protection, final String systemHeader)
    {
        this(uri, params, paramCount, protection, systemHeader, checkDisplayName(displayName));
    }

    /** An address with a display name as {@link #displayName} holds one (checked, or parsed bytes), or null. */
    AddressImpl(final URI uri, final String[] params, final int paramCount, final Protection protection,
        final String systemHeader, final Object displayName)
    {
        super(params, paramCount, protection, systemHeader);
        this.displayName = displayName;
        this.uri = uri;
    }

    /**
     * An address parsed from a header: {@code displayName} the name's UTF-8 bytes, not empty and without CR or LF
     * (its own array, kept), or null.
     */
    static AddressImpl parsed(final byte[] displayName, final URI uri, final String[] params, final int paramCount,
        final Protection protection, final String systemHeader)
    {
        return new AddressImpl(uri, params, paramCount, protection, systemHeader, displayName);
    }

    /** The URI (made first by a {@link ReceivedParty}); null for the wildcard. */
    URI uri()
    {
        return uri;
    }

    /** The Contact wildcard {@code *}. */
    static AddressImpl wildcard()
    {
        return new AddressImpl(null, null, null, 0, Protection.NONE, null);
    }

    /** A copy (sharing its URI's bytes) that refuses every change with {@link IllegalStateException}. */
    public AddressImpl readOnly(final String header)
    {
        load();
        final URI readOnlyUri = uri instanceof BaseUri base ? base.readOnly(header) : uri;
        return new AddressImpl(readOnlyUri, copyParams(), paramCount, Protection.READ_ONLY, header, displayName);
    }

    /**
     * A copy for the Contact the container writes ({@link Protection#CONTACT}): a {@code sip:}/{@code sips:} URI's
     * user part and parameters may change, as may the display name and header parameters; any other URI is read-only.
     */
    public AddressImpl containerContact(final String header)
    {
        load();
        final URI contactUri = uri instanceof SipURIImpl sip ? sip.containerContact(header)
            : uri instanceof BaseUri base ? base.readOnly(header) : uri;
        return new AddressImpl(contactUri, copyParams(), paramCount, Protection.CONTACT, header, displayName);
    }

    /** {@link #readOnly(String)} with a generic header name in the error message. */
    public AddressImpl readOnly()
    {
        return readOnly(null);
    }

    /**
     * A copy for From/To (JSR 289 system headers): display name, URI and other parameters may change, the {@code tag}
     * parameter may not ({@link #setParameter}/{@link #removeParameter} of {@code tag} throw
     * {@link IllegalStateException}).
     */
    public AddressImpl tagProtected(final String header)
    {
        load();
        return new AddressImpl(cloneUri(), copyParams(), paramCount, Protection.TAG, header, displayName);
    }

    /** {@link #tagProtected(String)} with a generic header name in the error message. */
    public AddressImpl tagProtected()
    {
        return tagProtected(null);
    }

    /** JSR 289: a deep copy with identical display name, URI and parameters, except that it has no tag parameter. */
    @Override
    public AddressImpl clone()
    {
        final AddressImpl clone = copy();
        clone.removeParameter(TAG);
        return clone;
    }

    /** A deep, modifiable copy with every parameter, the tag included. */
    public AddressImpl copy()
    {
        load();
        return new AddressImpl(cloneUri(), copyParams(), paramCount, Protection.NONE, null, displayName);
    }

    @Override
    public String getDisplayName()
    {
        load();
        if (displayName instanceof byte[] utf8)
        {
            final String name = new String(utf8, StandardCharsets.UTF_8);
            displayName = name; // the same text every time: a benign race on a shared read-only copy
            return name;
        }
        return (String)displayName;
    }

    /**
     * Sets the display name; null or "" removes it.
     *
     * @throws IllegalArgumentException when it holds a CR or LF (a quoted-string cannot carry one).
     */
    @Override
    public void setDisplayName(final String name)
    {
        checkWritable();
        displayName = checkDisplayName(name);
    }

    static String checkDisplayName(final String name)
    {
        if (null == name || name.isEmpty())
        {
            return null;
        }
        if (name.indexOf('\r') >= 0 || name.indexOf('\n') >= 0)
        {
            throw new IllegalArgumentException("display name must not contain CR or LF");
        }
        return name;
    }

    /** The URI, or null for the wildcard. */
    @Override
    public URI getURI()
    {
        return uri();
    }

    /** Sets the URI (kept by reference); an address that was the wildcard stops being one. */
    @Override
    public void setURI(final URI uri)
    {
        checkWritable();
        if (Protection.CONTACT == protection)
        {
            throw new IllegalStateException("the URI of the " + systemHeader
                + " is the container's; only its user part and parameters may change (JSR 289 §4.1.3)");
        }
        if (null == uri)
        {
            throw new NullPointerException("uri"); // JSR 289 Address.setURI: NullPointerException on null uri
        }
        this.uri = uri;
    }

    @Override
    public boolean isWildcard()
    {
        return null == uri();
    }

    /** The {@code q} parameter (RFC 3261 §20.10), or -1.0 when absent or not a number. */
    @Override
    public float getQ()
    {
        final String q = getParameter(Q);
        if (null == q)
        {
            return -1.0f;
        }
        try
        {
            return Float.parseFloat(q);
        }
        catch (final NumberFormatException e)
        {
            return -1.0f;
        }
    }

    /**
     * Sets the {@code q} parameter, written with at most three decimals (RFC 3261 §25.1 {@code qvalue});
     * -1.0 removes it.
     *
     * @throws IllegalArgumentException when q is neither -1.0 nor in 0.0..1.0.
     */
    @Override
    public void setQ(final float q)
    {
        if (q == -1.0f)
        {
            removeParameter(Q);
            return;
        }
        if (!(q >= 0.0f && q <= 1.0f))
        {
            throw new IllegalArgumentException("q must be in 0.0..1.0 or -1.0: " + q);
        }
        final int millis = Math.round(q * 1000);
        final StringBuilder text = new StringBuilder(5).append(millis / 1000).append('.');
        final String fraction = Integer.toString(1000 + millis % 1000).substring(1);
        int len = 3;
        while (len > 1 && fraction.charAt(len - 1) == '0')
        {
            len--;
        }
        setParameter(Q, text.append(fraction, 0, len).toString());
    }

    /** The {@code expires} parameter in seconds, or -1 when absent or not a number. */
    @Override
    public int getExpires()
    {
        final String expires = getParameter(EXPIRES);
        if (null == expires || expires.isEmpty() || expires.length() > 10)
        {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < expires.length(); i++)
        {
            final char c = expires.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return (int)Math.min(value, Integer.MAX_VALUE);
    }

    /** Sets the {@code expires} parameter; a negative value removes it. */
    @Override
    public void setExpires(final int seconds)
    {
        setParameter(EXPIRES, seconds < 0 ? null : Integer.toString(seconds));
    }

    /** The address without its parameters: display name and URI (JSR 289 {@code Parameterable.getValue}). */
    @Override
    public String getValue()
    {
        load();
        if (null == uri)
        {
            return "*";
        }
        return appendNameAddr(new StringBuilder(64)).toString();
    }

    /**
     * Replaces display name and URI with those of {@code value}, parsed as an address; the parameters of this
     * address stay (parameters inside {@code value} are added to them).
     *
     * @throws IllegalArgumentException when {@code value} is not an address.
     */
    @Override
    public void setValue(final String value)
    {
        checkWritable();
        final AddressImpl parsed;
        try
        {
            parsed = (AddressImpl)SipAddresses.parseAddress(value);
        }
        catch (final ServletParseException e)
        {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        displayName = parsed.displayName;
        uri = parsed.uri;
        for (int i = 0; i < parsed.paramCount; i++)
        {
            setParameter(parsed.params[2 * i], parsed.params[2 * i + 1]);
        }
    }

    @Override
    public String toString()
    {
        load();
        if (null == uri)
        {
            return appendParams(new StringBuilder(8).append('*')).toString();
        }
        return appendParams(appendNameAddr(new StringBuilder(96))).toString();
    }

    @Override
    public boolean equals(final Object o)
    {
        if (this == o)
        {
            return true;
        }
        if (!(o instanceof AddressImpl other))
        {
            return false;
        }
        final URI mine = uri();
        final URI theirs = other.uri();
        if (null == mine || null == theirs)
        {
            return null == mine && null == theirs;
        }
        return mine.equals(theirs) && paramsMatch(other, DEFINED) && other.paramsMatch(this, DEFINED);
    }

    @Override
    public int hashCode()
    {
        final URI mine = uri();
        return null == mine ? 0 : mine.hashCode() * 31 + paramsHash(DEFINED);
    }

    private StringBuilder appendNameAddr(final StringBuilder out)
    {
        final String u = uri.toString();
        final boolean brackets = null != displayName ||
            u.indexOf(',') >= 0 || u.indexOf(';') >= 0 || u.indexOf('?') >= 0;
        if (null != displayName)
        {
            appendDisplayName(out, getDisplayName()).append(' ');
        }
        return brackets ? out.append('<').append(u).append('>') : out.append(u);
    }

    private URI cloneUri()
    {
        return null == uri ? null : uri.clone();
    }

    /** A display name bare when it is tokens separated by single spaces, else quoted (RFC 3261 §25.1). */
    static StringBuilder appendDisplayName(final StringBuilder out, final String name)
    {
        boolean bare = name.charAt(0) != ' ' && name.charAt(name.length() - 1) != ' ';
        for (int i = 0; i < name.length() && bare; i++)
        {
            final char c = name.charAt(i);
            bare = UriText.isTokenChar(c) || (c == ' ' && name.charAt(i - 1) != ' ');
        }
        return bare ? out.append(name) : UriText.appendQuoted(out, name);
    }
}
