package io.sipline.media.turn;

import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageWriter;
import io.sipline.media.stun.StunResult;

import java.nio.charset.StandardCharsets;

/**
 * The long-term credential mechanism of one {@link TurnClient} (RFC 8489 §9.2): the first request goes without
 * credentials; a 401 answer's REALM and NONCE make the key (MD5 of {@code username:realm:password}) and the request
 * is sent again with USERNAME, REALM, NONCE and MESSAGE-INTEGRITY; a 438 Stale Nonce resends it with the new NONCE
 * (§9.2.5). At most three challenges are answered in a row. Success responses must verify with the key.
 *
 * <p>Not thread-safe; owned by the client's media thread. Allocates the key and a copy of REALM and NONCE when the
 * server changes them; nothing per request.
 */
final class TurnAuthentication
{
    private static final int MAX_AUTH_RETRIES = 3;

    private final byte[] username;
    private final String usernameText;
    private final String password;
    private byte[] realm;
    private byte[] nonce;
    private StunCredential credential;
    private int retries;

    TurnAuthentication(final String username, final String password)
    {
        this.usernameText = StunCredential.opaqueString(username);
        this.username = usernameText.getBytes(StandardCharsets.UTF_8);
        this.password = password;
    }

    /** A new transaction, or a success: the challenges answered in a row start again from zero. */
    void resetRetries()
    {
        retries = 0;
    }

    /**
     * @param response a success response (borrowed for the call).
     * @return whether it carries a MESSAGE-INTEGRITY that verifies with our key (none before the first challenge).
     */
    boolean verifies(final StunMessageFlyweight response, final StunIntegrity integrity)
    {
        return null != credential && StunResult.VERIFIED == response.verifyMessageIntegrity(integrity, credential);
    }

    /** Adds USERNAME, REALM, NONCE and MESSAGE-INTEGRITY once a challenge gave them; nothing before. */
    void write(final StunMessageWriter writer, final StunIntegrity integrity)
    {
        if (null != credential)
        {
            writer.addBytes(StunAttributeType.USERNAME, username, 0, username.length)
                .addBytes(StunAttributeType.REALM, realm, 0, realm.length)
                .addBytes(StunAttributeType.NONCE, nonce, 0, nonce.length)
                .addMessageIntegrity(integrity, credential);
        }
    }

    /**
     * Takes a 401 or 438 answer (RFC 8489 §9.2.5: 401 carries REALM and NONCE for the first authenticated attempt;
     * 438 a new NONCE).
     *
     * @param response the error response (borrowed for the call).
     * @param code     401 or 438.
     * @return {@link TurnResult#OK} when the request should be sent again, else the failure code.
     */
    int onChallenge(final StunMessageFlyweight response, final int code)
    {
        final boolean hadCredential = null != credential;
        final int realmIndex = response.findAttribute(StunAttributeType.REALM);
        final int nonceIndex = response.findAttribute(StunAttributeType.NONCE);
        if (-1 == nonceIndex || (-1 == realmIndex && !hadCredential) || retries >= MAX_AUTH_RETRIES
            || (TurnResult.UNAUTHENTICATED == code && hadCredential && -1 == realmIndex))
        {
            return TurnResult.UNAUTHENTICATED == code && hadCredential ? TurnResult.AUTHENTICATION_FAILED : code;
        }
        retries++;
        nonce = copyOf(response, nonceIndex, nonce);
        if (-1 != realmIndex && (null == credential || !response.valueEquals(realmIndex, realm, 0, realm.length)))
        {
            realm = copyOf(response, realmIndex, realm);
            credential = StunCredential.longTerm(usernameText, new String(realm, StandardCharsets.UTF_8),
                password, StunCredential.ALGORITHM_MD5);
        }
        else if (TurnResult.UNAUTHENTICATED == code && hadCredential)
        {
            return TurnResult.AUTHENTICATION_FAILED; // same realm, our key was refused
        }
        return TurnResult.OK;
    }

    private static byte[] copyOf(final StunMessageFlyweight response, final int index, final byte[] previous)
    {
        final int length = response.attributeLength(index);
        final byte[] into = null != previous && previous.length == length ? previous : new byte[length];
        response.copyValue(index, into, 0);
        return into;
    }
}
