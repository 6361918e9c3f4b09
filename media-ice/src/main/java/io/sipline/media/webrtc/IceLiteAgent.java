package io.sipline.media.webrtc;

import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunBindingServer;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunTransport;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The ICE-lite agent of one WebRTC leg (RFC 8445 §2.5): it sends no checks and only answers the peer's, which it
 * controls (a lite agent is always controlled, §6.1.1).
 * <ul>
 *   <li>A Binding request is answered by {@link StunBindingServer} with our short-term credential
 *       (the {@code a=ice-pwd} we wrote, RFC 8445 §7.3, RFC 8489 §9.1): USERNAME must start with our
 *       {@code ice-ufrag} and a colon and MESSAGE-INTEGRITY must verify, else 401 (counted); a bad FINGERPRINT is
 *       dropped (counted). A valid check gets XOR-MAPPED-ADDRESS of its source.</li>
 *   <li>A valid check with USE-CANDIDATE nominates its pair (§7.3.1.5, §8.2): the source becomes the
 *       {@link #selected()} address, which the leg latches to. A later nomination replaces it.</li>
 *   <li>Consent freshness (RFC 7675 §5.1): valid checks from the selected address (from any address before one is
 *       selected) refresh consent; once armed, {@link #consentExpired} says, once, when none came for the timeout.</li>
 *   <li>ICE restart (RFC 8445 §9): {@link #restart} installs new credentials; checks signed with the previous ones
 *       are still answered, so that media and consent go on over the selected pair, until a check with the new
 *       credentials nominates a pair; from then on only the new ones verify.</li>
 * </ul>
 *
 * <p>Not thread-safe; owned by the leg's media thread. The clock is passed in ({@code nowMs}) so that tests drive it.
 * Buffers handed in are borrowed for the call. Allocates nothing per check once the source address is known.
 */
final class IceLiteAgent implements StunBindingServer.CredentialLookup
{
    /** A valid check, answered with a success response. */
    static final int CHECKED = 0;
    /** A valid check with USE-CANDIDATE: {@link #selected()} is its source. */
    static final int NOMINATED = 1;
    /** An error response was sent (400 or 420). */
    static final int REJECTED = 2;
    /** Nothing answered: not a request, malformed framing or a bad FINGERPRINT. */
    static final int DROPPED = 3;
    /** Answered 401: an unknown ufrag or a MESSAGE-INTEGRITY that does not verify. */
    static final int UNAUTHENTICATED = 4;

    private String ufrag;
    private String password;
    private byte[] usernamePrefix;
    private StunCredential key;
    /** The credentials before a restart, still valid until the new ones nominate a pair; null when none. */
    private byte[] previousPrefix;
    private StunCredential previousKey;
    private boolean previousMatched;
    private final StunBindingServer server;
    private final StunMessageFlyweight request = new StunMessageFlyweight();
    private final long consentTimeoutMs;
    private InetSocketAddress selected;
    private InetSocketAddress lastChecked;
    private boolean armed;
    private boolean expired;
    private long lastConsentMs;
    private boolean lookedUp;
    private long checks;
    private long unauthenticated;
    private long rejected;
    private long dropped;

    /**
     * @param ufrag            our {@code ice-ufrag} (RFC 8839 §5.4).
     * @param password         our {@code ice-pwd}, the short-term password checks are signed with.
     * @param integrity        the HMAC and CRC engines of this agent's thread.
     * @param transport        where responses go (the leg's RTP socket).
     * @param consentTimeoutMs how long without a valid check until consent expires (RFC 7675: 30 s).
     */
    IceLiteAgent(final String ufrag, final String password, final StunIntegrity integrity,
        final StunTransport transport, final long consentTimeoutMs)
    {
        credentials(ufrag, password);
        this.server = new StunBindingServer(transport, integrity, this, null);
        this.consentTimeoutMs = consentTimeoutMs;
    }

    private void credentials(final String newUfrag, final String newPassword)
    {
        this.ufrag = newUfrag;
        this.password = newPassword;
        this.usernamePrefix = (newUfrag + ":").getBytes(StandardCharsets.UTF_8);
        this.key = StunCredential.shortTerm(newPassword);
    }

    /**
     * An ICE restart (RFC 8445 §9, RFC 8839 §4.4.3.1.1): the peer re-offered new credentials and we answer with these.
     * The selected pair, its consent and the DTLS association stay; checks signed with the credentials in use until
     * now are still answered until a check signed with the new ones nominates a pair (the peer sends media over the
     * previous pair until its new checks succeed). A restart before that replaces the pending credentials.
     *
     * @param newUfrag    our new {@code ice-ufrag}.
     * @param newPassword our new {@code ice-pwd}.
     */
    void restart(final String newUfrag, final String newPassword)
    {
        if (null == previousPrefix)
        {
            previousPrefix = usernamePrefix;
            previousKey = key;
        }
        credentials(newUfrag, newPassword);
    }

    /** @return whether a restart waits for a nomination signed with the new credentials. */
    boolean isRestarting()
    {
        return null != previousPrefix;
    }

    /** @return our {@code ice-ufrag}. */
    String ufrag()
    {
        return ufrag;
    }

    /** @return our {@code ice-pwd}. */
    String password()
    {
        return password;
    }

    /**
     * Handles one STUN datagram received on the leg.
     *
     * @param buffer the datagram, borrowed.
     * @param offset its first octet.
     * @param length its length.
     * @param source where it came from.
     * @param nowMs  the time, for consent freshness.
     * @return {@link #CHECKED}, {@link #NOMINATED}, {@link #REJECTED}, {@link #UNAUTHENTICATED} or {@link #DROPPED}.
     */
    int onStun(final byte[] buffer, final int offset, final int length, final InetSocketAddress source,
        final long nowMs)
    {
        lookedUp = false;
        previousMatched = false;
        final int wrap = request.wrap(buffer, offset, length);
        final int result = server.onMessage(request, wrap, source);
        if (StunBindingServer.RESPONDED_ERROR == result)
        {
            rejected++;
            if (lookedUp)
            {
                // Past the lookup the only error StunBindingServer sends is 401 (RFC 8489 §9.1.3).
                unauthenticated++;
                return UNAUTHENTICATED;
            }
            return REJECTED;
        }
        if (StunBindingServer.RESPONDED != result)
        {
            dropped++;
            return DROPPED;
        }
        checks++;
        lastChecked = source;
        final boolean nominated = -1 != request.findAttribute(StunAttributeType.USE_CANDIDATE);
        if (nominated)
        {
            selected = source;
            if (!previousMatched)
            {
                // RFC 8445 §9: the restarted session has nominated a pair, the previous credentials are gone.
                previousPrefix = null;
                previousKey = null;
            }
        }
        if (null == selected || selected.equals(source))
        {
            lastConsentMs = nowMs;
            expired = false;
        }
        return nominated ? NOMINATED : CHECKED;
    }

    @Override
    public StunCredential lookup(final StunMessageFlyweight message, final int usernameIndex)
    {
        lookedUp = true;
        // RFC 8445 §7.3: the USERNAME of a check for us is "ourUfrag:theirUfrag".
        if (message.valueStartsWith(usernameIndex, usernamePrefix))
        {
            return key;
        }
        if (null != previousPrefix && message.valueStartsWith(usernameIndex, previousPrefix))
        {
            previousMatched = true;
            return previousKey;
        }
        return null;
    }

    /**
     * Starts the consent clock: called when the offer/answer exchange is complete, since no check can come before.
     * Idempotent.
     *
     * @param nowMs the time.
     */
    void arm(final long nowMs)
    {
        if (!armed)
        {
            armed = true;
            if (0 == checks)
            {
                lastConsentMs = nowMs;
            }
        }
    }

    /**
     * @param nowMs the time.
     * @return true once when the agent is armed and no valid check (from the selected address, when there is one)
     *         came for the consent timeout; from then on false until a valid check restores consent.
     */
    boolean consentExpired(final long nowMs)
    {
        if (armed && !expired && nowMs - lastConsentMs >= consentTimeoutMs)
        {
            expired = true;
            return true;
        }
        return false;
    }

    /** @return the nominated pair's remote address, or null before a USE-CANDIDATE check. */
    InetSocketAddress selected()
    {
        return selected;
    }

    /**
     * @param source an address.
     * @return whether it is the selected address or the source of the latest valid check: the only addresses DTLS
     *         is accepted from (RFC 8445 §12: no data before a check has succeeded).
     */
    boolean isChecked(final InetSocketAddress source)
    {
        return source.equals(selected) || source.equals(lastChecked);
    }

    /** @return valid checks answered. */
    long checks()
    {
        return checks;
    }

    /** @return checks answered with 401: an unknown ufrag or a MESSAGE-INTEGRITY that does not verify. */
    long unauthenticated()
    {
        return unauthenticated;
    }

    /** @return requests answered with an error response (401 included). */
    long rejected()
    {
        return rejected;
    }

    /** @return STUN datagrams dropped without an answer. */
    long dropped()
    {
        return dropped;
    }
}
