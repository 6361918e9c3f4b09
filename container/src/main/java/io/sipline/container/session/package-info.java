/**
 * Sessions and timers (JSR 289 §6, §22): {@link io.sipline.container.session.SipApplicationSessionImpl} (expiry,
 * invalidate-when-ready, attributes, timers), {@link io.sipline.container.session.SipSessionImpl} (the JSR 289 face
 * of a session) and its parts: {@code SessionDialog} (the RFC 3261 §12 dialog state), {@code InDialogRequests} (the
 * requests made from it), {@code SessionStates} (the §6.2.1 states as responses pass), {@code SessionFork} (derived
 * sessions of a forked request), {@code SessionAttributes} and {@code SessionInvalidation}; the per-shard
 * {@link io.sipline.container.session.SessionTable}, {@link io.sipline.container.session.ServletTimerImpl}, and the
 * seams to the rest of the container: {@link io.sipline.container.session.ContainerShard} (the shard: ids, clock, timing
 * wheel, wire), {@link io.sipline.container.session.RunningApplication} (the application: listeners, servlets),
 * {@link io.sipline.container.session.AckWait} and {@link io.sipline.container.session.ResponseRetransmission} (the
 * dispatch layer's response retransmissions) and {@link io.sipline.container.session.SessionProxy} (the proxy).
 */
package io.sipline.container.session;
