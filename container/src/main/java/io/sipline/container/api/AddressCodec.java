package io.sipline.container.api;

import javax.servlet.sip.Address;
import javax.servlet.sip.Parameterable;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.URI;

import io.sipline.container.address.AbstractParameterable.Protection;
import io.sipline.container.address.SipAddresses;

/**
 * The one place where the message layer turns header text into the address package's objects
 * ({@link SipAddresses}), and picks their protection mode: read-only for system headers and committed messages,
 * tag-protected for the From and To of a request the application may still change (JSR 289 §4.1.2, §5.4.2).
 * <p>
 * Threading: stateless.
 */
final class AddressCodec
{
    private AddressCodec()
    {
    }

    static Address address(final String text) throws ServletParseException
    {
        return SipAddresses.parseAddress(text);
    }

    /** A read-only address of {@code text}, made so at once (no modifiable one to copy). */
    static Address readOnlyAddress(final String text, final String header) throws ServletParseException
    {
        return SipAddresses.parseAddress(text, Protection.READ_ONLY, header);
    }

    /**
     * The From or To address of entry {@code i} of {@code h}: read-only, or tag-protected (a request still to be sent),
     * made so at once; while the entry is a span, parsed from its bytes, so that no String of the value is made (a
     * read-only one on first use, see {@link SipAddresses#parseReceivedParty}).
     */
    static Address partyAddress(final MessageHeaders h, final int i, final boolean readOnly, final String header)
        throws ServletParseException
    {
        final Protection protection = readOnly ? Protection.READ_ONLY : Protection.TAG;
        final long span = h.valueSpan(i);
        final int start = (int)(span >>> 32);
        final Address plain = span < 0 ? null
            : readOnly ? SipAddresses.parseReceivedParty(h.bytes(), start, (int)span, header)
            : SipAddresses.parsePlainAddress(h.bytes(), start, (int)span, protection, header);
        return null != plain ? plain : SipAddresses.parseAddress(h.value(i), protection, header);
    }

    /** An address of {@code text} for the container's Contact (JSR 289 §4.1.3), made so at once. */
    static Address containerContactAddress(final String text, final String header) throws ServletParseException
    {
        return SipAddresses.parseAddress(text, Protection.CONTACT, header);
    }

    static URI uri(final String text) throws ServletParseException
    {
        return SipAddresses.parseUri(text);
    }

    static Parameterable parameterable(final String text) throws ServletParseException
    {
        return SipAddresses.parseParameterable(text);
    }
}
