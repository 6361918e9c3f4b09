/**
 * The session description model that anchoring media needs (RFC 8866): {@link io.sipline.media.sdp.SessionDescription}
 * with its {@link io.sipline.media.sdp.MediaDescription}s, parsed from and written back to text. Attributes are kept
 * as lines in order, so that ICE (RFC 8839), DTLS ({@code a=fingerprint}, {@code a=setup}, RFC 8842) and SDES
 * ({@code a=crypto}, RFC 4568) attributes reach the code that reads them.
 *
 * <p>Threading: every class is mutable and not thread-safe; a description belongs to the call that made it.
 */
package io.sipline.media.sdp;
