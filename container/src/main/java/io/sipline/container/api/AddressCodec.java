package io.sipline.container.api;

import javax.servlet.sip.Address;
import javax.servlet.sip.Parameterable;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.URI;

import io.sipline.container.address.AddressImpl;
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

    static URI uri(final String text) throws ServletParseException
    {
        return SipAddresses.parseUri(text);
    }

    static Parameterable parameterable(final String text) throws ServletParseException
    {
        return SipAddresses.parseParameterable(text);
    }

    static Address readOnly(final Address a, final String header)
    {
        return a instanceof AddressImpl impl ? impl.readOnly(header) : a;
    }

    static Address containerContact(final Address a, final String header)
    {
        return a instanceof AddressImpl impl ? impl.containerContact(header) : a;
    }

    static Address tagProtected(final Address a, final String header)
    {
        return a instanceof AddressImpl impl ? impl.tagProtected(header) : a;
    }
}
