package io.sipline.container.api;

import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The text rules of a message's content (JSR 289 §5.6): which Content-Types are text, the charset that decodes and
 * encodes them (the {@code charset} parameter, else the character encoding the application set, else UTF-8), the
 * bytes of the content an application sets, and the language tags of Accept-Language values (RFC 3261 §20.3).
 * <p>
 * Threading: stateless.
 */
final class ContentText
{
    /** Charset of text bodies without a charset parameter (RFC 3261 §20.15 text/* defaults; UTF-8 in practice). */
    static final Charset DEFAULT_CHARSET = StandardCharsets.UTF_8;

    private ContentText()
    {
    }

    /** Whether content of this Content-Type is returned as a String ({@code text/*}). */
    static boolean isText(final String contentType)
    {
        return null != contentType && contentType.strip().toLowerCase(Locale.ROOT).startsWith("text/");
    }

    /** The character encoding: the Content-Type's charset parameter, else {@code encoding} (may be null). */
    static String characterEncoding(final String contentType, final String encoding)
    {
        final String fromType = null == contentType ? null : HeaderText.param(contentType, "charset");
        return null != fromType ? fromType : encoding;
    }

    /** The charset of {@link #characterEncoding}, UTF-8 when there is none. */
    static Charset charset(final String contentType, final String encoding) throws UnsupportedEncodingException
    {
        final String name = characterEncoding(contentType, encoding);
        if (null == name || name.isEmpty())
        {
            return DEFAULT_CHARSET;
        }
        try
        {
            return Charset.forName(name);
        }
        catch (final IllegalCharsetNameException | UnsupportedCharsetException e)
        {
            throw new UnsupportedEncodingException(name);
        }
    }

    /**
     * The bytes of content an application sets: a {@code byte[]} itself, not a copy (the message then reads it when
     * it is sent, as the reference container does; the JSR 289 javadoc asks for no copy, and an application relaying
     * {@code getRawContent()} passes the other message's body array, which neither message writes), a String encoded
     * with {@link #charset}, or any other object's {@code toString()} encoded the same way (the JSR 289 javadoc
     * allows it for text types; the reference container does it for every type, e.g. an SDP object with
     * {@code application/sdp}).
     *
     * @throws IllegalArgumentException for an object other than a String or byte[] with a {@code multipart/*} type:
     *                                  its {@code toString()} is not its MIME body (the javadoc allows refusing).
     */
    static byte[] bytesOf(final Object content, final String contentType, final String encoding)
        throws UnsupportedEncodingException
    {
        if (content instanceof byte[] raw)
        {
            return raw;
        }
        if (content instanceof String text)
        {
            return text.getBytes(charset(contentType, encoding));
        }
        if (null != contentType && contentType.regionMatches(true, 0, "multipart/", 0, 10))
        {
            throw new IllegalArgumentException("content of type " + content.getClass().getName()
                + " cannot be written as " + contentType + ": give its bytes or its text");
        }
        return content.toString().getBytes(charset(contentType, encoding));
    }

    /** The language tags of Accept-Language values, in order, without their {@code q} parameters. */
    static List<Locale> languages(final List<String> values)
    {
        final List<Locale> out = new ArrayList<>();
        for (final String line : values)
        {
            for (final String part : line.split(","))
            {
                final int semi = part.indexOf(';');
                final String tag = (semi < 0 ? part : part.substring(0, semi)).strip();
                if (!tag.isEmpty())
                {
                    out.add(Locale.forLanguageTag(tag));
                }
            }
        }
        return out;
    }
}
