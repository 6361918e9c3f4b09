package io.sipline.container.address;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.servlet.sip.Parameterable;

/**
 * The {@code ;name=value} parameters shared by {@link AddressImpl} and {@link ParameterableImpl}: one
 * {@code String[]} holding names and wire values alternately ({@code [n0, v0, n1, v1, ...]}), in arrival order, no
 * map and no entry objects. A value is kept as written on the wire: a token or host bare, anything else as a
 * quoted-string with its quotes; "" marks a flag parameter ({@code ;lr}). {@link #getParameter(String)} returns
 * the value unquoted. Names match ignoring ASCII case (RFC 3261 §7.3.1).
 *
 * <p>Protection (JSR 289 system headers, as the {@code SipServletMessage} javadoc lists them): a
 * {@link Protection#READ_ONLY} object refuses every change (system headers: Via, Route, Record-Route, Call-ID, CSeq,
 * Contact of most messages ...); a {@link Protection#TAG} object refuses
 * changes to the {@code tag} parameter only (From and To, whose display name and URI an application may edit in
 * some cases but whose tag belongs to the container). Both refusals are {@link IllegalStateException}s.
 *
 * <p>Threading: not thread-safe; one application thread at a time.
 */
public abstract sealed class AbstractParameterable implements Parameterable permits AddressImpl, ParameterableImpl
{
    /** What the application may change. */
    public enum Protection
    {
        /** Everything. */
        NONE,
        /** Everything but the {@code tag} parameter (From, To). */
        TAG,
        /** Nothing (system headers). */
        READ_ONLY,
        /**
         * The container's Contact in a message it writes the Contact of (JSR 289 §4.1.3): display name, header
         * parameters and the URI's user part and parameters; not the URI itself, its scheme, host or port.
         */
        CONTACT
    }

    static final String TAG = "tag";
    private static final String[] NO_PARAMS = new String[0];

    /** Names and wire values alternately; {@link #NO_PARAMS} when empty. */
    String[] params;
    /** Number of parameters (pairs) in use. */
    int paramCount;
    final Protection protection;
    /** The header named in refusals; null for {@link Protection#NONE}. */
    final String systemHeader;

    AbstractParameterable(final String[] params, final int paramCount, final Protection protection,
        final String systemHeader)
    {
        this.params = null == params ? NO_PARAMS : params;
        this.paramCount = paramCount;
        this.protection = protection;
        this.systemHeader = protection == Protection.NONE ? null : null == systemHeader ? "this header" : systemHeader;
    }

    @Override
    public abstract AbstractParameterable clone();

    /**
     * Makes {@link #params} when a subclass defers them (an address read from a received header parses on first
     * use); nothing here. Called before every read of the parameters.
     */
    void load()
    {
    }

    /** What the application may change. */
    public final Protection protection()
    {
        return protection;
    }

    @Override
    public String getParameter(final String name)
    {
        final int i = indexOf(name);
        return i < 0 ? null : UriText.unquote(params[2 * i + 1]);
    }

    @Override
    public Iterator<String> getParameterNames()
    {
        load();
        if (paramCount == 0)
        {
            return Collections.emptyIterator();
        }
        final List<String> names = new ArrayList<>(paramCount);
        for (int i = 0; i < paramCount; i++)
        {
            names.add(params[2 * i]);
        }
        return Collections.unmodifiableList(names).iterator();
    }

    /** A snapshot of the parameters in order (later changes are not reflected); values unquoted. */
    @Override
    public Set<Map.Entry<String, String>> getParameters()
    {
        load();
        final Set<Map.Entry<String, String>> entries = new LinkedHashSet<>();
        for (int i = 0; i < paramCount; i++)
        {
            entries.add(new AbstractMap.SimpleImmutableEntry<>(params[2 * i], UriText.unquote(params[2 * i + 1])));
        }
        return Collections.unmodifiableSet(entries);
    }

    /**
     * Sets a parameter, replacing the value of an existing one (name ignoring case) or appending it. A value that
     * is not a token or host is written as a quoted-string ({@code "} and {@code \} escaped), unless it already is
     * one; "" makes a flag parameter; null removes it.
     *
     * @throws IllegalStateException    for a system header, or for {@code tag} of a From/To.
     * @throws IllegalArgumentException when the name is not a token or the value holds a CR or LF.
     */
    @Override
    public void setParameter(final String name, final String value)
    {
        checkParameterWritable(name);
        if (null == name || !UriText.isToken(name))
        {
            throw new IllegalArgumentException("parameter name is not a token: " + name);
        }
        if (null == value)
        {
            removeParameter(name);
            return;
        }
        final String wireValue = wireValue(value);
        final int i = indexOf(name);
        if (i >= 0)
        {
            params[2 * i + 1] = wireValue;
            return;
        }
        append(name, wireValue);
    }

    /** Sets the parameters made by a deferred parse ({@link #load}): names and wire values alternately, or null. */
    final void setParams(final String[] params, final int count)
    {
        this.params = null == params ? NO_PARAMS : params;
        this.paramCount = count;
    }

    /** Appends a parameter as it is (no checks), growing the array when full. */
    final void append(final String name, final String wireValue)
    {
        load();
        if (2 * paramCount + 2 > params.length)
        {
            final String[] grown = new String[Math.max(4, params.length * 2)];
            System.arraycopy(params, 0, grown, 0, 2 * paramCount);
            params = grown;
        }
        params[2 * paramCount] = name;
        params[2 * paramCount + 1] = wireValue;
        paramCount++;
    }

    @Override
    public void removeParameter(final String name)
    {
        checkParameterWritable(name);
        final int i = indexOf(name);
        if (i < 0)
        {
            return;
        }
        System.arraycopy(params, 2 * i + 2, params, 2 * i, 2 * (paramCount - i - 1));
        paramCount--;
        params[2 * paramCount] = null;
        params[2 * paramCount + 1] = null;
    }

    /** Index of the parameter named {@code name} ignoring case, or -1. */
    final int indexOf(final String name)
    {
        load();
        if (null == name)
        {
            return -1;
        }
        for (int i = 0; i < paramCount; i++)
        {
            if (name.equalsIgnoreCase(params[2 * i]))
            {
                return i;
            }
        }
        return -1;
    }

    final void checkWritable()
    {
        if (protection == Protection.READ_ONLY)
        {
            throw new IllegalStateException(systemHeader + " is a system header and cannot be modified");
        }
    }

    final void checkParameterWritable(final String name)
    {
        checkWritable();
        if (protection == Protection.TAG && TAG.equalsIgnoreCase(name))
        {
            throw new IllegalStateException("the tag parameter of " + systemHeader +
                " is set by the container and cannot be modified");
        }
    }

    /** A copy of the parameter array trimmed to its size (for clones and protected copies). */
    final String[] copyParams()
    {
        load();
        if (paramCount == 0)
        {
            return NO_PARAMS;
        }
        final String[] copy = new String[2 * paramCount];
        System.arraycopy(params, 0, copy, 0, copy.length);
        return copy;
    }

    /** Appends {@code ;name[=value]} for every parameter. */
    final StringBuilder appendParams(final StringBuilder out)
    {
        load();
        for (int i = 0; i < paramCount; i++)
        {
            out.append(';').append(params[2 * i]);
            final String value = params[2 * i + 1];
            if (!value.isEmpty())
            {
                out.append('=').append(value);
            }
        }
        return out;
    }

    /**
     * The parameters as a set (order ignored): the same names ignoring case, each with an equal value; token values
     * compare ignoring case, quoted-string values exactly (RFC 3261 §7.3.1).
     */
    final boolean paramsEqual(final AbstractParameterable other)
    {
        return paramsMatch(other, null) && other.paramsMatch(this, null);
    }

    /**
     * RFC 3261 §20.20 and §20.39 rule for address headers: every parameter present in both has equal values (as in
     * {@link #paramsEqual}); a parameter present in only one is ignored unless its name is one of
     * {@code mustMatch}, which must be present in both or in neither. With {@code mustMatch} null, every
     * parameter of this object must be present in the other.
     */
    final boolean paramsMatch(final AbstractParameterable other, final String[] mustMatch)
    {
        load();
        other.load();
        for (int i = 0; i < paramCount; i++)
        {
            final String name = params[2 * i];
            final int j = other.indexOf(name);
            if (j < 0)
            {
                if (null == mustMatch || contains(mustMatch, name))
                {
                    return false;
                }
            }
            else if (!valueEquals(params[2 * indexOf(name) + 1], other.params[2 * j + 1]))
            {
                return false;
            }
        }
        if (null != mustMatch)
        {
            for (final String name : mustMatch)
            {
                if ((indexOf(name) < 0) != (other.indexOf(name) < 0))
                {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * A hash consistent with {@link #paramsMatch}: of the parameters named in {@code names} only (null: all), each
     * value hashed as it is compared.
     */
    final int paramsHash(final String[] names)
    {
        load();
        int h = 0;
        for (int i = 0; i < paramCount; i++)
        {
            final String name = params[2 * i];
            if (indexOf(name) == i && (null == names || contains(names, name)))
            {
                final String value = params[2 * i + 1];
                h += lowerHash(name) * 31 + (isQuoted(value) ? value.hashCode() : lowerHash(value));
            }
        }
        return h;
    }

    /**
     * The value as it goes on the wire: bare when it is a token or host, else a quoted-string.
     *
     * @throws IllegalArgumentException when it holds a CR or LF.
     */
    static String wireValue(final String value)
    {
        if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0)
        {
            throw new IllegalArgumentException("parameter value must not contain CR or LF");
        }
        if (value.isEmpty() || UriText.isBareValue(value) || UriText.isQuotedString(value))
        {
            return value;
        }
        return UriText.appendQuoted(new StringBuilder(value.length() + 8), value).toString();
    }

    private static boolean contains(final String[] names, final String name)
    {
        for (final String n : names)
        {
            if (n.equalsIgnoreCase(name))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean valueEquals(final String a, final String b)
    {
        return isQuoted(a) || isQuoted(b) ? a.equals(b) : a.equalsIgnoreCase(b);
    }

    private static boolean isQuoted(final String value)
    {
        return !value.isEmpty() && value.charAt(0) == '"';
    }

    static int lowerHash(final String s)
    {
        int h = 0;
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            h = 31 * h + (c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        return h;
    }
}
