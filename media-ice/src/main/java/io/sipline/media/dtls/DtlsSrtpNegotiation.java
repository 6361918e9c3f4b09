package io.sipline.media.dtls;

import java.io.IOException;
import java.util.List;

import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.ExporterLabel;
import org.bouncycastle.tls.HashAlgorithm;
import org.bouncycastle.tls.SignatureAlgorithm;
import org.bouncycastle.tls.SignatureAndHashAlgorithm;
import org.bouncycastle.tls.TlsContext;
import org.bouncycastle.tls.TlsCredentialedSigner;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.UseSRTPData;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.impl.bc.BcDefaultTlsCredentialedSigner;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;

/**
 * The DTLS-SRTP rules both TLS peers of an endpoint share: our certificate and signer, the {@code use_srtp} offer
 * and choice (RFC 5764 §4.1), the check of the peer's certificate against the fingerprint of its SDP
 * (RFC 5763 §5), and the export of the SRTP keys once the handshake is done (RFC 5764 §4.2). A failed check records
 * its {@link DtlsFailure} here before it raises the fatal alert, so that the endpoint reports why.
 *
 * <p>Not thread-safe; used by one handshake thread, then read by it to report.
 */
final class DtlsSrtpNegotiation
{
    private static final SignatureAndHashAlgorithm ECDSA_SHA256 =
        SignatureAndHashAlgorithm.getInstance(HashAlgorithm.sha256, SignatureAlgorithm.ecdsa);

    private final DtlsRole role;
    private final DtlsCertificate certificate;
    private final DtlsFingerprint peerFingerprint;
    private final List<DtlsSrtpProfile> profiles;
    private final BcTlsCrypto crypto;
    private DtlsSrtpProfile selected;
    private DtlsSrtpKeys keys;
    private DtlsFailure failure;
    private String failureDetail;

    DtlsSrtpNegotiation(
        final DtlsRole role,
        final DtlsCertificate certificate,
        final DtlsFingerprint peerFingerprint,
        final List<DtlsSrtpProfile> profiles,
        final BcTlsCrypto crypto)
    {
        this.role = role;
        this.certificate = certificate;
        this.peerFingerprint = peerFingerprint;
        this.profiles = profiles;
        this.crypto = crypto;
    }

    BcTlsCrypto crypto()
    {
        return crypto;
    }

    /** @return our certificate and key as a TLS 1.2 ECDSA signer for this handshake. */
    TlsCredentialedSigner signer(final TlsContext context) throws IOException
    {
        return new BcDefaultTlsCredentialedSigner(new TlsCryptoParameters(context), crypto,
            certificate.privateKey(), certificate.tlsCertificate(crypto), ECDSA_SHA256);
    }

    /** @return the client's {@code use_srtp}: our profiles in order of preference and no MKI (RFC 5764 §4.1.1). */
    UseSRTPData offer()
    {
        final int[] ids = new int[profiles.size()];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = profiles.get(i).id();
        }
        return new UseSRTPData(ids, TlsUtils.EMPTY_BYTES);
    }

    /**
     * The server's choice from the client's {@code use_srtp}: our most preferred profile it offers
     * (RFC 5764 §4.1.1: the server picks one of the client's profiles).
     *
     * @param clientOffer the client's extension, or null when it sent none.
     */
    void choose(final UseSRTPData clientOffer) throws TlsFatalAlert
    {
        if (null == clientOffer)
        {
            throw fail(DtlsFailure.NO_SRTP_PROFILE, "the ClientHello carries no use_srtp extension",
                AlertDescription.handshake_failure);
        }
        for (final DtlsSrtpProfile profile : profiles)
        {
            for (final int offered : clientOffer.getProtectionProfiles())
            {
                if (offered == profile.id())
                {
                    selected = profile;
                    return;
                }
            }
        }
        throw fail(DtlsFailure.NO_SRTP_PROFILE, "no SRTP protection profile in common with the client",
            AlertDescription.handshake_failure);
    }

    /** @return the server's {@code use_srtp}: the chosen profile alone, with no MKI (RFC 5764 §4.1.1). */
    UseSRTPData choice()
    {
        return new UseSRTPData(new int[] {selected.id()}, TlsUtils.EMPTY_BYTES);
    }

    /**
     * The client's check of the server's {@code use_srtp}: exactly one profile, one we offered, and an MKI no
     * different from ours, which is empty (RFC 5764 §4.1.3).
     *
     * @param serverAnswer the server's extension, or null when it sent none.
     */
    void accept(final UseSRTPData serverAnswer) throws TlsFatalAlert
    {
        if (null == serverAnswer)
        {
            throw fail(DtlsFailure.NO_SRTP_PROFILE, "the ServerHello carries no use_srtp extension",
                AlertDescription.handshake_failure);
        }
        final int[] chosen = serverAnswer.getProtectionProfiles();
        final DtlsSrtpProfile profile = 1 == chosen.length ? DtlsSrtpProfile.fromId(chosen[0]) : null;
        if (null == profile || !profiles.contains(profile) || serverAnswer.getMki().length != 0)
        {
            throw fail(DtlsFailure.NO_SRTP_PROFILE, "the server's use_srtp does not name one offered profile " +
                "without MKI", AlertDescription.illegal_parameter);
        }
        selected = profile;
    }

    /**
     * RFC 5763 §5: the peer must present a certificate, and its hash under the function of the peer's SDP
     * fingerprint must equal that fingerprint.
     *
     * @param peerCertificate the chain the peer sent; its first entry is checked.
     */
    void verifyPeer(final Certificate peerCertificate) throws IOException
    {
        if (null == peerCertificate || peerCertificate.isEmpty())
        {
            throw fail(DtlsFailure.NO_CERTIFICATE, "the peer presented no certificate",
                AlertDescription.handshake_failure);
        }
        if (!peerFingerprint.matches(peerCertificate.getCertificateAt(0).getEncoded()))
        {
            throw fail(DtlsFailure.FINGERPRINT_MISMATCH, "the peer's certificate does not match a=fingerprint:" +
                peerFingerprint.sdpValue(), AlertDescription.bad_certificate);
        }
    }

    /** Exports the keying material for the selected profile (RFC 5764 §4.2) and keeps the keys. */
    void exportKeys(final TlsContext context) throws TlsFatalAlert
    {
        if (null == selected)
        {
            throw fail(DtlsFailure.NO_SRTP_PROFILE, "the handshake completed without use_srtp",
                AlertDescription.handshake_failure);
        }
        final byte[] material = context.exportKeyingMaterial(ExporterLabel.dtls_srtp, null,
            selected.keyingMaterialLength());
        keys = new DtlsSrtpKeys(role, selected, material, peerFingerprint);
    }

    DtlsSrtpKeys keys()
    {
        return keys;
    }

    DtlsFailure failure()
    {
        return failure;
    }

    String failureDetail()
    {
        return failureDetail;
    }

    private TlsFatalAlert fail(final DtlsFailure reason, final String detail, final short alert)
    {
        failure = reason;
        failureDetail = detail;
        return new TlsFatalAlert(alert, detail);
    }
}
