/**
 * TURN (RFC 8656) client for the media plane: {@link io.sipline.media.turn.TurnClient} (Allocate with long-term
 * credentials, Refresh, CreatePermission, ChannelBind, Send/Data indications), ChannelData framing ({@link
 * io.sipline.media.turn.TurnChannelData}) and result codes ({@link io.sipline.media.turn.TurnResult}). Transport
 * agnostic: datagrams go to a {@link io.sipline.media.stun.StunTransport} and come back through {@code onDatagram};
 * time is passed in.
 *
 * <p>Everything here is owned by one media thread.
 */
package io.sipline.media.turn;
