/**
 * The media relay: media threads of their own that own UDP sockets from a port range and relay RTP and RTCP between
 * the two legs of each {@link io.sipline.media.relay.RelayStream}, plain or SRTP on either side, latching to the
 * address packets come from. Entry point: {@link io.sipline.media.relay.MediaRelay}. A WebRTC leg's DTLS-SRTP side
 * plugs in through {@link io.sipline.media.relay.DtlsPacketSink} and {@link io.sipline.media.relay.DtlsLeg}.
 *
 * <p>Threading: a stream and its legs belong to one media thread; the public control methods hand their work to that
 * thread's queue and may be called from any thread.
 */
package io.sipline.media.relay;
