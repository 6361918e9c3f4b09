/**
 * STUN (RFC 8489) for the media plane: a flyweight codec over caller buffers ({@link
 * io.sipline.media.stun.StunMessageFlyweight}, {@link io.sipline.media.stun.StunMessageWriter}), per-thread integrity
 * engines ({@link io.sipline.media.stun.StunIntegrity}), credentials ({@link io.sipline.media.stun.StunCredential}),
 * client transactions with the RFC 8489 §6.2.1 retransmission schedule ({@link
 * io.sipline.media.stun.StunClientTransactions}) and a Binding server ({@link
 * io.sipline.media.stun.StunBindingServer}).
 *
 * <p>Everything here is owned by one media thread; nothing allocates per message on the receive path once warm.
 */
package io.sipline.media.stun;
