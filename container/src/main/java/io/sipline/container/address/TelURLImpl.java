package io.sipline.container.address;

import java.nio.charset.StandardCharsets;

import javax.servlet.sip.TelURL;

import io.sipline.sip.message.SipUriFlyweight;
import io.sipline.sip.message.UriComparison;

/**
 * A {@code tel:} URI (RFC 3966) as a JSR 289 {@link TelURL}, kept as its wire bytes (see {@link BaseUri}): a global
 * number ({@code tel:+1-201-555-0123}) or a local number with its {@code phone-context}
 * ({@code tel:7042;phone-context=example.com}), then parameters.
 *
 * <p>{@link #equals(Object)} is RFC 3966 §4 (through {@code UriComparison.telEquals}): visual separators ignored,
 * parameters compared as a set, names and values ignoring case; {@link #hashCode()} hashes the number without its
 * separators, ignoring case.
 *
 * <p>Threading: not thread-safe; one application thread at a time. Read-only copies are immutable.
 */
public final class TelURLImpl extends BaseUri implements TelURL
{
    private static final String PHONE_CONTEXT = "phone-context";

    TelURLImpl(final byte[] wire, final String systemHeader)
    {
        super(wire, systemHeader);
    }

    @Override
    public TelURLImpl readOnly(final String header)
    {
        return new TelURLImpl(wire(), null == header ? "this header" : header);
    }

    @Override
    public TelURLImpl clone()
    {
        return new TelURLImpl(wire(), null);
    }

    @Override
    public String getScheme()
    {
        return "tel";
    }

    /** JSR 289: the number with its visual separators, without the leading {@code +} of a global number. */
    @Override
    public String getPhoneNumber()
    {
        final SipUriFlyweight f = view(Scratch.get().first);
        final int start = f.isGlobalNumber() ? f.userStart() + 1 : f.userStart();
        return UriText.unescape(wire(), start, f.userEnd());
    }

    @Override
    public boolean isGlobal()
    {
        return view(Scratch.get().first).isGlobalNumber();
    }

    @Override
    public String getPhoneContext()
    {
        return getParameter(PHONE_CONTEXT);
    }

    /**
     * Makes this a global number; a leading {@code +} is added when missing. A phone-context parameter is dropped
     * (RFC 3966 §5.1.5: only local numbers carry one).
     *
     * @throws IllegalArgumentException when the result is not a valid global number.
     */
    @Override
    public void setPhoneNumber(final String number)
    {
        checkWritable();
        if (null == number || number.isEmpty())
        {
            throw new IllegalArgumentException("phone number must not be null or empty");
        }
        rebuild(number.charAt(0) == '+' ? number : '+' + number, null);
    }

    /**
     * Makes this a local number in the given context (a domain name or a global number prefix such as {@code +1}).
     *
     * @throws IllegalArgumentException when the number starts with {@code +} or the result is not valid.
     */
    @Override
    public void setPhoneNumber(final String number, final String phoneContext)
    {
        checkWritable();
        if (null == number || number.isEmpty() || number.charAt(0) == '+')
        {
            throw new IllegalArgumentException("a local phone number must be non-empty and not start with '+': " +
                number);
        }
        if (null == phoneContext || phoneContext.isEmpty())
        {
            throw new IllegalArgumentException("a local phone number needs a phone-context");
        }
        rebuild(number, phoneContext);
    }

    /** RFC 3966 §4. */
    @Override
    boolean rulesEqual(final SipUriFlyweight a, final SipUriFlyweight b)
    {
        return UriComparison.telEquals(a, b);
    }

    @Override
    public int hashCode()
    {
        final SipUriFlyweight f = view(Scratch.get().first);
        int h = f.isGlobalNumber() ? 1 : 0;
        for (int i = f.userStart(); i < f.userEnd(); i++)
        {
            final int c = wire()[i];
            if (c != '-' && c != '.' && c != '(' && c != ')')
            {
                h = 31 * h + (c >= 'A' && c <= 'Z' ? c + 32 : c);
            }
        }
        return h;
    }

    /** "tel:" + number + the phone-context (when given) + every other parameter as it is. */
    private void rebuild(final String number, final String phoneContext)
    {
        final SipUriFlyweight f = view(Scratch.get().first);
        final StringBuilder text = new StringBuilder(wire().length + number.length() + 32).append("tel:")
            .append(UriText.escape(number, UriText.PARAM));
        if (null != phoneContext)
        {
            text.append(";phone-context=").append(UriText.escape(phoneContext, UriText.PARAM));
        }
        for (int i = 0; i < f.paramCount(); i++)
        {
            final int start = f.paramNameStart(i);
            if (!isPhoneContext(start, f.paramNameEnd(i)))
            {
                text.append(';').append(new String(wire(), start, paramEntryEnd(f, i) - start,
                    StandardCharsets.ISO_8859_1));
            }
        }
        for (int i = 0; i < text.length(); i++)
        {
            if (text.charAt(i) > 0x7E)
            {
                throw new IllegalArgumentException("not a valid tel URL: " + text);
            }
        }
        install(ascii(text.toString()));
    }

    private boolean isPhoneContext(final int start, final int end)
    {
        return end - start == PHONE_CONTEXT.length() &&
            PHONE_CONTEXT.regionMatches(true, 0, new String(wire(), start, end - start, StandardCharsets.ISO_8859_1),
                0, PHONE_CONTEXT.length());
    }
}
