package io.sipline.container.api;

import javax.servlet.sip.Address;

/**
 * The From and To {@code Address} objects an application got from one message ({@code getFrom}, {@code getTo}),
 * made on first read and kept so that every read answers the same object: all that most messages an application
 * reads need beside their header section, so that they make no {@link MessageExtras}, which holds these too.
 * <p>
 * Threading: owned by its message (see {@link SipServletMessageImpl}).
 */
class MessageParties
{
    Address fromAddress;
    Address toAddress;
}
