package io.sipline.container.api;

import java.util.ArrayList;
import java.util.List;

import javax.servlet.sip.Address;
import javax.servlet.sip.Parameterable;

import io.sipline.sip.message.HeaderName;

/**
 * The {@code Address} and {@code Parameterable} objects an application got for the values of a message's writable
 * headers ({@code getAddressHeader}, {@code getParameterableHeader} and their list forms), each with the text of the
 * value it was made from. When the message is written, an object whose text now differs replaces its value, so that
 * editing the object edits the header, as in the reference container. Setting, adding or removing the header drops
 * its objects: the explicit value wins.
 * <p>
 * Made only when the application asks for such an object, never on the container's own path. Not threadsafe; owned
 * by its message (JSR 289 §5: messages are not thread-safe).
 */
final class HeaderBindings
{
    /** One object handed out for the {@code ordinal}-th value of header {@code name}, made from {@code text}. */
    private record Bound(String name, int ordinal, Parameterable value, String text)
    {
    }

    private final List<Bound> bound = new ArrayList<>(2);

    /**
     * The object already handed out for the {@code ordinal}-th value of {@code name} (an {@code Address} when
     * {@code address}), else {@code value}, which is bound to it from now on.
     */
    Parameterable bind(final String name, final int ordinal, final String text, final Parameterable value,
        final boolean address)
    {
        final HeaderName k = HeaderName.lookup(name);
        for (final Bound b : bound)
        {
            if (b.ordinal == ordinal && sameHeader(k, name, b.name) && (!address || b.value instanceof Address))
            {
                return b.value;
            }
        }
        bound.add(new Bound(name, ordinal, value, text));
        return value;
    }

    /** Drops the objects of one header (known as {@code k}, written {@code name}). */
    void unbind(final HeaderName k, final String name)
    {
        for (int i = bound.size() - 1; i >= 0; i--)
        {
            if (sameHeader(k, name, bound.get(i).name))
            {
                bound.remove(i);
            }
        }
    }

    /** Writes the objects whose text changed into {@code headers}, at the value each was made from. */
    void writeTo(final MessageHeaders headers)
    {
        for (final Bound b : bound)
        {
            final String text = b.value.toString();
            if (text.equals(b.text))
            {
                continue;
            }
            int i = headers.find(b.name, 0);
            for (int n = 0; n < b.ordinal && i >= 0; n++)
            {
                i = headers.find(b.name, i + 1);
            }
            if (i >= 0)
            {
                headers.setValue(i, text);
            }
        }
    }

    private static boolean sameHeader(final HeaderName k, final String name, final String other)
    {
        return HeaderName.UNKNOWN == k ? name.equalsIgnoreCase(other) : k == HeaderName.lookup(other);
    }
}
