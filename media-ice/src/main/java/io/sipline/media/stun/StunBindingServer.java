package io.sipline.media.stun;

import java.net.InetSocketAddress;

/**
 * Answers STUN Binding requests (RFC 8489 §6.3, §7.3): a success response carrying XOR-MAPPED-ADDRESS of the source,
 * or the error responses §6.3.1 and §9.1.3 call for.
 *
 * <ul>
 *     <li>Not STUN, a bad FINGERPRINT (§7.3), a response, or an indication: nothing is sent.</li>
 *     <li>Malformed known attribute, or a method other than Binding: 400 (Bad Request).</li>
 *     <li>Unknown comprehension-required attributes: 420 (Unknown Attribute) with UNKNOWN-ATTRIBUTES (§6.3.1.1).</li>
 *     <li>With a {@link CredentialLookup} (short-term, §9.1.3, as ICE uses): no USERNAME or no
 *     MESSAGE-INTEGRITY(-SHA256) is 400; an unknown USERNAME or a wrong integrity value is 401 (Unauthenticated),
 *     sent without integrity. Otherwise the success response carries the same integrity attribute the request used,
 *     keyed by the same credential.</li>
 *     <li>A FINGERPRINT in the request gets one in the response (ICE requires it, RFC 8445 §7.3).</li>
 * </ul>
 *
 * <p>Not thread-safe; owned by one media thread. Holds its own flyweight, writer and send buffer; allocates nothing per
 * request once the source {@link java.net.InetAddress} is known (see {@link StunAddress#set}).
 */
public final class StunBindingServer
{
    /** A success response was sent. */
    public static final int RESPONDED = 0;
    /** An error response was sent. */
    public static final int RESPONDED_ERROR = 1;
    /** Nothing to answer (indication or response). */
    public static final int IGNORED = 2;
    /** Dropped: not STUN, malformed framing, or bad FINGERPRINT. */
    public static final int DROPPED = 3;

    /** Size of the response buffer. */
    public static final int RESPONSE_CAPACITY = 548;

    /**
     * Finds the credential for a request's USERNAME without making a String of it (see
     * {@link StunMessageFlyweight#valueEquals} and {@link StunMessageFlyweight#valueStartsWith}).
     */
    public interface CredentialLookup
    {
        /**
         * @param request       the request.
         * @param usernameIndex index of its USERNAME attribute.
         * @return the credential, or null when the username is not known.
         */
        StunCredential lookup(StunMessageFlyweight request, int usernameIndex);
    }

    private final StunTransport transport;
    private final StunIntegrity integrity;
    private final CredentialLookup credentials;
    private final byte[] software;
    private final StunMessageFlyweight request = new StunMessageFlyweight();
    private final StunMessageWriter writer = new StunMessageWriter();
    private final StunAddress source = new StunAddress();
    private final byte[] response = new byte[RESPONSE_CAPACITY];
    private long responded;
    private long respondedError;
    private long dropped;

    /**
     * @param transport   where responses go.
     * @param integrity   the thread's integrity engine.
     * @param credentials short-term credential lookup, or null for an unauthenticated STUN server.
     * @param software    SOFTWARE value to send (copied), or null for none.
     */
    public StunBindingServer(
        final StunTransport transport,
        final StunIntegrity integrity,
        final CredentialLookup credentials,
        final byte[] software)
    {
        this.transport = transport;
        this.integrity = integrity;
        this.credentials = credentials;
        this.software = null == software ? null : software.clone();
    }

    /**
     * Handles one datagram.
     *
     * @param buf    bytes (borrowed for the call).
     * @param offset first byte.
     * @param length bytes.
     * @param from   the source address.
     * @return {@link #RESPONDED}, {@link #RESPONDED_ERROR}, {@link #IGNORED} or {@link #DROPPED}.
     */
    public int onDatagram(final byte[] buf, final int offset, final int length, final InetSocketAddress from)
    {
        final int result = request.wrap(buf, offset, length);
        return onMessage(request, result, from);
    }

    /**
     * Handles a message already wrapped by the caller (e.g. by a demultiplexer).
     *
     * @param message    the message.
     * @param wrapResult its framing code.
     * @param from       the source address.
     * @return {@link #RESPONDED}, {@link #RESPONDED_ERROR}, {@link #IGNORED} or {@link #DROPPED}.
     */
    public int onMessage(final StunMessageFlyweight message, final int wrapResult, final InetSocketAddress from)
    {
        if (wrapResult < 0)
        {
            dropped++;
            return DROPPED;
        }
        final int fingerprintResult = message.verifyFingerprint(integrity);
        if (StunResult.MISMATCH == fingerprintResult || StunResult.BAD_ATTRIBUTE == fingerprintResult)
        {
            dropped++;
            return DROPPED; // §7.3: a wrong FINGERPRINT means the packet is not ours
        }
        if (StunMessageType.CLASS_REQUEST != message.messageClass())
        {
            return IGNORED; // indications get no answer; stray responses are the client's business
        }
        final boolean fingerprint = -1 != message.fingerprintIndex();
        if (StunResult.UNKNOWN_COMPREHENSION_REQUIRED == wrapResult)
        {
            writer.wrap(response, 0, response.length)
                .header(errorType(message), message)
                .addErrorCode(420, "Unknown Attribute")
                .addUnknownAttributes(message);
            return sendError(fingerprint, from);
        }
        if (StunMessageType.METHOD_BINDING != message.method())
        {
            return error(message, 400, "Unsupported method", fingerprint, from);
        }
        if (-1 != message.firstMalformedAttribute())
        {
            return error(message, 400, "Malformed attribute", fingerprint, from);
        }

        StunCredential credential = null;
        if (null != credentials)
        {
            // §9.1.3: both a USERNAME and an integrity attribute, or 400.
            final int usernameIndex = message.findAttribute(StunAttributeType.USERNAME);
            if (-1 == usernameIndex || (-1 == message.integrityIndex() && -1 == message.integritySha256Index()))
            {
                return error(message, 400, "Missing USERNAME or MESSAGE-INTEGRITY", fingerprint, from);
            }
            credential = credentials.lookup(message, usernameIndex);
            if (null == credential || StunResult.VERIFIED != message.verifyIntegrity(integrity, credential))
            {
                return error(message, 401, "Unauthenticated", fingerprint, from);
            }
        }

        writer.wrap(response, 0, response.length)
            .header(StunMessageType.type(message.method(), StunMessageType.CLASS_SUCCESS_RESPONSE), message)
            .addAddress(StunAttributeType.XOR_MAPPED_ADDRESS, source.set(from));
        addSoftware();
        if (null != credential)
        {
            if (-1 != message.integritySha256Index())
            {
                writer.addMessageIntegritySha256(integrity, credential);
            }
            else
            {
                writer.addMessageIntegrity(integrity, credential);
            }
        }
        if (fingerprint)
        {
            writer.addFingerprint(integrity);
        }
        final int length = writer.length();
        if (length < 0)
        {
            dropped++;
            return DROPPED;
        }
        transport.send(response, 0, length, from);
        responded++;
        return RESPONDED;
    }

    /**
     * @return success responses sent.
     */
    public long responded()
    {
        return responded;
    }

    /**
     * @return error responses sent.
     */
    public long respondedError()
    {
        return respondedError;
    }

    /**
     * @return messages dropped.
     */
    public long dropped()
    {
        return dropped;
    }

    private int error(
        final StunMessageFlyweight message,
        final int code,
        final String reason,
        final boolean fingerprint,
        final InetSocketAddress from)
    {
        writer.wrap(response, 0, response.length)
            .header(errorType(message), message)
            .addErrorCode(code, reason);
        return sendError(fingerprint, from);
    }

    private int sendError(final boolean fingerprint, final InetSocketAddress from)
    {
        addSoftware();
        if (fingerprint)
        {
            writer.addFingerprint(integrity);
        }
        final int length = writer.length();
        if (length < 0)
        {
            dropped++;
            return DROPPED;
        }
        transport.send(response, 0, length, from);
        respondedError++;
        return RESPONDED_ERROR;
    }

    private void addSoftware()
    {
        if (null != software)
        {
            writer.addBytes(StunAttributeType.SOFTWARE, software, 0, software.length);
        }
    }

    private static int errorType(final StunMessageFlyweight message)
    {
        return StunMessageType.type(message.method(), StunMessageType.CLASS_ERROR_RESPONSE);
    }
}
