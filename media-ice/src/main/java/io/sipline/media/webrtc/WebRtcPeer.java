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

    /**
     * Checks a later description of the same peer (a re-offer or the answer to ours) against this one: new ICE
     * credentials only in an offer and then both of them (an ICE restart, RFC 8445 §9, RFC 8839 §4.4.3.1.1; an
     * answer restarts nothing, since we never offer a restart), and in an answer the DTLS roles our offer kept. A
     * new fingerprint, or in an offer other DTLS roles, asks for a new DTLS association ({@link #newAssociation}).
     *
     * @param next  the later description.
     * @param offer whether it came in an offer.
     * @throws SdpException when it asks for what an anchored leg does not do.
     */
    void checkRenegotiation(final WebRtcPeer next, final boolean offer)
    {
        final boolean sameUfrag = ufrag.equals(next.ufrag);
        final boolean samePassword = password.equals(next.password);
        if (!offer && !(sameUfrag && samePassword))
        {
            throw new SdpException("the WebRTC peer changed its ICE credentials in an answer to an offer that did " +
                "not restart ICE (RFC 8445 §9: only an offer restarts ICE)");
        }
        if (sameUfrag != samePassword)
        {
            throw new SdpException("the WebRTC peer changed only its a=ice-" + (sameUfrag ? "pwd" : "ufrag") +
                ": an ICE restart changes both (RFC 8839 §4.4.3.1.1)");
        }
        if (!offer && role != next.role)
        {
            throw new SdpException("a=setup:" + next.setup.sdpValue() + " in the answer changes the DTLS roles our " +
                "offer kept (RFC 8842 §5.5)");
        }
    }

    /**
     * @param next  a later description that passed {@link #checkRenegotiation}.
     * @param offer whether it came in an offer.
     * @return whether it asks for a new DTLS association (RFC 8842 §4, §5.5: a changed fingerprint, or other DTLS
     *         roles; {@code actpass} in an offer leaves the roles to us, and we keep them).
     */
    boolean newAssociation(final WebRtcPeer next, final boolean offer)
    {
        return !fingerprint.equals(next.fingerprint) || offer && DtlsSetup.ACTPASS != next.setup && role != next.role;
    }

    /**
     * @param next  a later description that asks for a new DTLS association.
     * @param offer whether it came in an offer.
     * @return the peer of the new association: the later description's credentials, fingerprint and setup, and our
     *         role as it gives it, or the role we had when it leaves the choice to us ({@code actpass}).
     */
    WebRtcPeer renewed(final WebRtcPeer next, final boolean offer)
    {
        final boolean ours = offer && DtlsSetup.ACTPASS == next.setup;
        return new WebRtcPeer(next.ufrag, next.password, next.fingerprint, next.setup, next.ourSetup,
            ours ? role : next.role);
    }

    /**
     * @param next a later description that passed {@link #checkRenegotiation}.
     * @return whether it restarts ICE (new credentials, RFC 8445 §9).
     */
    boolean restartsIce(final WebRtcPeer next)
    {
        return !ufrag.equals(next.ufrag);
    }

    /**
     * @param next a later offer that restarts ICE.
     * @return this peer with the new ICE credentials and the same fingerprint, setup and DTLS role (RFC 8842 §5.5:
     *         the association survives an ICE restart).
     */
    WebRtcPeer restarted(final WebRtcPeer next)
    {
        return new WebRtcPeer(next.ufrag, next.password, fingerprint, setup, ourSetup, role);
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
