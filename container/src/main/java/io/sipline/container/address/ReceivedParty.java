package io.sipline.container.address;

import javax.servlet.sip.URI;

/**
 * The From or To of a received message (read-only, JSR 289 §4.1.2 system headers), parsed on first use over the
 * message's bytes, which it keeps until then: its URI when first asked for, made of its text in those bytes without a
 * copy of them (see {@link BaseUri}), and its display name and parameters when one of them is read, so that an
 * application that reads only the URI makes no String of the tag and no display name.
 *
 * <p>Threading: as its message (one thread at a time); the first parse writes its fields, so unlike other read-only
 * addresses it is not to be shared between threads before it has been read.
 */
final class ReceivedParty extends AddressImpl
{
    /** The largest position {@link #span} holds: a header value's span in a message's bytes lies below 64 KiB. */
    static final int MAX_POSITION = 0xFFFF;

    /** The message's bytes, never written, until the parse; null after it. */
    private byte[] bytes;
    /** Where the value is in {@link #bytes}: {@code start << 16 | end}, one field instead of two. */
    private final int span;

    /**
     * @param bytes the message's bytes, never written; {@code [start, end)} a value {@link
     *              SipAddresses#parseReceivedParty} checked, both at most {@link #MAX_POSITION}.
     */
    ReceivedParty(final byte[] bytes, final int start, final int end, final String header)
    {
        super(null, null, 0, Protection.READ_ONLY, header, null);
        this.bytes = bytes;
        this.span = start << 16 | end;
    }

    private int start()
    {
        return span >>> 16;
    }

    private int end()
    {
        return span & MAX_POSITION;
    }

    /** The URI, made from the message's bytes when first asked for. */
    @Override
    URI uri()
    {
        if (null == uri)
        {
            uri = SipAddresses.receivedUri(bytes, start(), end(), systemHeader);
        }
        return uri;
    }

    /** Display name and parameters, parsed at the first read of one of them (the URI first); the bytes let go. */
    @Override
    void load()
    {
        final byte[] b = bytes;
        if (null != b)
        {
            uri();
            displayName = SipAddresses.loadParts(this, b, start(), end());
            bytes = null;
        }
    }
}
