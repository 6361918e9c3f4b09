package io.sipline.media.webrtc;

import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;

/**
 * ICE connectivity checks as a full, controlling agent (a browser) sends them to an ICE-lite peer (RFC 8445 §7.2.2):
 * a Binding request with USERNAME {@code theirUfrag:ourUfrag}, PRIORITY, ICE-CONTROLLING, USE-CANDIDATE when
 * nominating, MESSAGE-INTEGRITY keyed by the peer's {@code ice-pwd} and FINGERPRINT.
 */
final class IceChecks
{
    private final StunIntegrity integrity = new StunIntegrity();
    private final StunMessageWriter writer = new StunMessageWriter();
    private long transactions = 1;

    /**
     * @return the request's length in {@code out}.
     */
    int request(final byte[] out, final String username, final String password, final boolean useCandidate)
    {
        writer.wrap(out, 0, out.length)
            .header(StunMessageType.BINDING_REQUEST, 0x1234_5678, transactions++)
            .addAscii(StunAttributeType.USERNAME, username)
            .addU32(StunAttributeType.PRIORITY, 0x6E7F_1EFF)
            .addU64(StunAttributeType.ICE_CONTROLLING, 0x0102_0304_0506_0708L);
        if (useCandidate)
        {
            writer.addEmpty(StunAttributeType.USE_CANDIDATE);
        }
        writer.addMessageIntegrity(integrity, StunCredential.shortTerm(password)).addFingerprint(integrity);
        return writer.length();
    }
}
