/**
 * DTLS-SRTP (RFC 5763, RFC 5764) for media legs that a WebRTC peer keys with DTLS: the server's certificate and its
 * SDP fingerprint, {@code a=setup} roles, and a DTLS 1.2 endpoint per leg that the relay feeds with packets.
 *
 * <p>Entry points: {@link io.sipline.media.dtls.DtlsCertificate#generate} once at start-up, whose
 * {@link io.sipline.media.dtls.DtlsCertificate#sdpFingerprint()} goes into every {@code a=fingerprint} line;
 * {@link io.sipline.media.dtls.DtlsSetup} to settle the {@link io.sipline.media.dtls.DtlsRole} of a leg from the
 * offer and answer; {@link io.sipline.media.dtls.DtlsFingerprint#parse} for the peer's {@code a=fingerprint};
 * {@link io.sipline.media.dtls.DtlsEndpoint#start} per leg, fed with
 * {@link io.sipline.media.dtls.DtlsEndpoint#onDatagram(byte[], int, int)}, which reports the
 * {@link io.sipline.media.dtls.DtlsSrtpKeys} (ready {@code io.sipline.media.srtp} policies for both directions) or a
 * {@link io.sipline.media.dtls.DtlsFailure} to its {@link io.sipline.media.dtls.DtlsListener}. The handshake itself
 * is Bouncy Castle's ({@code bctls}).
 *
 * <p>Threading: the media thread that owns a leg's socket calls {@code onDatagram}, which never blocks; each
 * endpoint runs its handshake on a virtual thread of its own, which calls the relay's
 * {@link io.sipline.media.dtls.DtlsSender} and the listener. Certificates, fingerprints, configs and keys are
 * immutable and shared freely.
 */
package io.sipline.media.dtls;
