/**
 * SRTP and SRTCP (RFC 3711; AES-192/256 of RFC 6188; AES-GCM of RFC 7714) with SDES keying (RFC 4568).
 *
 * <p>Entry points: {@link io.sipline.media.srtp.SdesCryptoAttribute#parse(CharSequence)} for an {@code a=crypto}
 * line, {@link io.sipline.media.srtp.SrtpPolicy} for keys and parameters, and
 * {@link io.sipline.media.srtp.SrtpContext} (one per direction) for in-place protect and unprotect that return a length
 * or a negative {@link io.sipline.media.srtp.SrtpResult}. Streams are found by SSRC: the only stream of a context
 * from two fields of the context itself, more than one in the SIMD index of {@code io.sipline.media.ssrc}
 * ({@link io.sipline.media.srtp.SsrcIndexStreamLookup} behind the {@link io.sipline.media.srtp.SrtpStreamLookup}
 * seam); {@link io.sipline.media.srtp.SrtpSession} pairs the two
 * directions of one media session.
 * Crypto sits behind {@link io.sipline.media.srtp.SrtpBackend}: {@code javax.crypto} by default, Bouncy Castle as the
 * alternative.
 *
 * <p>Threading: every class here except the immutable ones (policy, attribute, suite, backends' factories) is not
 * thread-safe and is owned by one media thread.
 */
package io.sipline.media.srtp;
