package io.sipline.media.ice;

import io.sipline.media.stun.StunCredential;

import java.nio.charset.StandardCharsets;
import java.util.random.RandomGenerator;

/**
 * The ICE credentials of one {@link IceAgent} (RFC 8445 §5.3): our ufrag and password, the peer's, the short-term
 * keys made from them (RFC 8489 §9.1) and the byte forms a check needs — the USERNAME our checks carry
 * ({@code remoteUfrag:localUfrag}, §7.2.2) and the prefix an incoming check's USERNAME must start with
 * ({@code localUfrag:}, §7.3).
 *
 * <p>Not thread-safe; owned by the agent's media thread. Allocates when credentials change (signalling rate).
 */
final class IceCredentials
{
    private static final char[] ICE_CHARS =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray();

    String localUfrag;
    String localPassword;
    StunCredential localKey;
    /** {@code localUfrag:} in UTF-8: what the USERNAME of a check for us starts with. */
    byte[] localUsernamePrefix;
    String remoteUfrag;
    String remotePassword;
    /** The key our checks are signed with, and their answers verified with; null until the peer's description. */
    StunCredential remoteKey;
    /** {@code remoteUfrag:localUfrag} in UTF-8: the USERNAME of our checks. */
    byte[] checkUsername;

    /**
     * New random credentials: a ufrag of 8 and a password of 24 ice-chars, 48 and 144 bits of randomness (§5.3 asks
     * for at least 24 and 128).
     *
     * @param random the media thread's secure random.
     */
    void newLocal(final RandomGenerator random)
    {
        local(randomIceChars(random, 8), randomIceChars(random, 24));
    }

    void local(final String ufrag, final String password)
    {
        localUfrag = ufrag;
        localPassword = password;
        localKey = StunCredential.shortTerm(password);
        localUsernamePrefix = (ufrag + ":").getBytes(StandardCharsets.UTF_8);
        if (null != remoteUfrag)
        {
            checkUsername = (remoteUfrag + ":" + ufrag).getBytes(StandardCharsets.UTF_8);
        }
    }

    /** @return whether the peer had credentials and these differ (§9: the peer restarted ICE). */
    boolean remoteChanged(final String ufrag, final String password)
    {
        return null != remoteUfrag && (!remoteUfrag.equals(ufrag) || !remotePassword.equals(password));
    }

    void remote(final String ufrag, final String password)
    {
        remoteUfrag = ufrag;
        remotePassword = password;
        remoteKey = StunCredential.shortTerm(password);
        checkUsername = (ufrag + ":" + localUfrag).getBytes(StandardCharsets.UTF_8);
    }

    private static String randomIceChars(final RandomGenerator random, final int n)
    {
        final char[] chars = new char[n];
        for (int i = 0; i < n; i++)
        {
            chars[i] = ICE_CHARS[random.nextInt(ICE_CHARS.length)];
        }
        return new String(chars);
    }
}
