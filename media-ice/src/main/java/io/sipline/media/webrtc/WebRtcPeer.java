package io.sipline.media.webrtc;

import io.sipline.media.dtls.DtlsFingerprint;
import io.sipline.media.dtls.DtlsRole;
import io.sipline.media.dtls.DtlsSetup;
import io.sipline.media.ice.IceParseException;
import io.sipline.media.ice.IceSdp;
import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.sdp.SdpException;

/**
 * What a WebRTC leg learns from the peer's media section: its ICE credentials (RFC 8839 §5.4), the fingerprint its
 * DTLS certificate must match (RFC 8122 §5, RFC 5763 §5; the first {@code sha-256} one when several are given, else
 * the first we know) and the DTLS role this leaves us (RFC 5763 §5, RFC 4145 §4).
 *
 * @param ufrag       the peer's {@code ice-ufrag}.
 * @param password    the peer's {@code ice-pwd}.
 * @param fingerprint the peer's certificate fingerprint.
 * @param setup       the peer's {@code a=setup}.
 * @param ourSetup    what we say (in our answer) or said (in our offer).
 * @param role        our DTLS role.
 */
record WebRtcPeer(String ufrag, String password, DtlsFingerprint fingerprint, DtlsSetup setup, DtlsSetup ourSetup,
    DtlsRole role)
{
    /**
     * Reads the peer's media section.
     *
     * @param remote the media section, with session-level ICE and DTLS attributes already folded in.
     * @param offer  whether it came in an offer (then we answer its setup) or in the answer to our actpass offer.
     * @return what it says.
     * @throws SdpException when an attribute DTLS-SRTP or ICE needs is missing or malformed.
     */
    static WebRtcPeer parse(final MediaDescription remote, final boolean offer)
    {
        final String ufrag = remote.attribute("ice-ufrag");
        final String password = remote.attribute("ice-pwd");
        if (null == ufrag || null == password)
        {
            throw new SdpException("a WebRTC media section needs a=ice-ufrag and a=ice-pwd (RFC 8839 §5.4)");
        }
        try
        {
            IceSdp.checkUfrag(ufrag);
            IceSdp.checkPassword(password);
        }
        catch (final IceParseException e)
        {
            throw new SdpException("malformed ICE credentials: " + e.getMessage());
        }
        final DtlsFingerprint fingerprint = fingerprint(remote);
        final String setupValue = remote.attribute("setup");
        // RFC 5763 §5: an offer without a=setup means actpass; an answer without it means active (RFC 4145 §4).
        final DtlsSetup setup = null == setupValue ? (offer ? DtlsSetup.ACTPASS : DtlsSetup.ACTIVE)
            : DtlsSetup.parse(setupValue);
        if (null == setup)
        {
            throw new SdpException("a=setup:" + setupValue + " is none of active, passive, actpass, holdconn");
        }
        try
        {
            final DtlsSetup ours = offer ? setup.answer() : DtlsSetup.ACTPASS;
            final DtlsRole role = offer ? ours.role() : DtlsSetup.offererRole(setup);
            return new WebRtcPeer(ufrag, password, fingerprint, setup, ours, role);
        }
        catch (final IllegalArgumentException e)
        {
            throw new SdpException(e.getMessage() + " (RFC 5763 §5)");
        }
    }

    private static DtlsFingerprint fingerprint(final MediaDescription remote)
    {
        DtlsFingerprint chosen = null;
        String firstError = null;
        for (final String value : remote.attributes("fingerprint"))
        {
            try
            {
                final DtlsFingerprint f = DtlsFingerprint.parse(value);
                if ("sha-256".equals(f.hashFunction()))
                {
                    return f;
                }
                if (null == chosen)
                {
                    chosen = f;
                }
            }
            catch (final IllegalArgumentException e)
            {
                firstError = null == firstError ? e.getMessage() : firstError;
            }
        }
        if (null == chosen)
        {
            throw new SdpException(null == firstError ?
                "a WebRTC media section needs a=fingerprint (RFC 8122 §5, RFC 5763 §5)" :
                "no usable a=fingerprint: " + firstError);
        }
        return chosen;
    }
}
