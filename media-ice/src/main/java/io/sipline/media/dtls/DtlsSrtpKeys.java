package io.sipline.media.dtls;

import java.util.Arrays;

import io.sipline.media.srtp.SrtpPolicy;
import io.sipline.media.srtp.SrtpSession;

/**
 * The SRTP keys of one DTLS-SRTP leg, cut from the exported keying material by role (RFC 5764 §4.2):
 * <pre>
 *   EXTRACTOR-dtls_srtp, 2 * (key + salt) octets:
 *   +-------------------+-------------------+--------------------+--------------------+
 *   | client write key  | server write key  | client write salt  | server write salt  |
 *   +-------------------+-------------------+--------------------+--------------------+
 * </pre>
 * The client protects what it sends with the client key and salt, and the server with the server's; so our
 * outbound policy takes our role's half and the inbound one the peer's.
 *
 * <p>Immutable (the keying material is copied); thread-safe. Its policies may be handed to the media thread as
 * they are; {@link #newSession()} makes the session that thread then owns.
 */
public final class DtlsSrtpKeys
{
    private final DtlsRole role;
    private final DtlsSrtpProfile profile;
    private final SrtpPolicy outbound;
    private final SrtpPolicy inbound;
    private final byte[] keyingMaterial;
    private final DtlsFingerprint peerFingerprint;

    DtlsSrtpKeys(
        final DtlsRole role,
        final DtlsSrtpProfile profile,
        final byte[] keyingMaterial,
        final DtlsFingerprint peerFingerprint)
    {
        if (keyingMaterial.length != profile.keyingMaterialLength())
        {
            throw new IllegalArgumentException(profile + " needs " + profile.keyingMaterialLength() +
                " octets of keying material, got " + keyingMaterial.length);
        }
        this.role = role;
        this.profile = profile;
        this.keyingMaterial = keyingMaterial.clone();
        this.peerFingerprint = peerFingerprint;
        final int keyLength = profile.suite().keyLength();
        final int saltLength = profile.suite().saltLength();
        final SrtpPolicy client = policy(0, 2 * keyLength, keyLength, saltLength);
        final SrtpPolicy server = policy(keyLength, 2 * keyLength + saltLength, keyLength, saltLength);
        this.outbound = DtlsRole.CLIENT == role ? client : server;
        this.inbound = DtlsRole.CLIENT == role ? server : client;
    }

    private SrtpPolicy policy(final int keyOffset, final int saltOffset, final int keyLength, final int saltLength)
    {
        return SrtpPolicy.builder(profile.suite())
            .masterKey(Arrays.copyOfRange(keyingMaterial, keyOffset, keyOffset + keyLength),
                Arrays.copyOfRange(keyingMaterial, saltOffset, saltOffset + saltLength))
            .build();
    }

    /** @return our role in the handshake that made these keys. */
    public DtlsRole role()
    {
        return role;
    }

    /** @return the protection profile the handshake settled on. */
    public DtlsSrtpProfile profile()
    {
        return profile;
    }

    /** @return the policy we protect outgoing SRTP/SRTCP with (our role's key and salt). */
    public SrtpPolicy outboundPolicy()
    {
        return outbound;
    }

    /** @return the policy we unprotect incoming SRTP/SRTCP with (the peer's key and salt). */
    public SrtpPolicy inboundPolicy()
    {
        return inbound;
    }

    /** @return a copy of the exported keying material, in the RFC 5764 §4.2 order. */
    public byte[] keyingMaterial()
    {
        return keyingMaterial.clone();
    }

    /** @return the fingerprint of the SDP that the peer's certificate matched. */
    public DtlsFingerprint peerFingerprint()
    {
        return peerFingerprint;
    }

    /**
     * A new session over both policies, for the media thread to own.
     *
     * @return a session; the caller closes it.
     */
    public SrtpSession newSession()
    {
        return new SrtpSession(outbound, inbound);
    }
}
