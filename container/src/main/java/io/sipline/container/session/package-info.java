/**
 * Sessions and timers (JSR 289 §6, §22): {@link io.sipline.container.session.SipApplicationSessionImpl} (expiry,
 * invalidate-when-ready, attributes, timers), {@link io.sipline.container.session.SipSessionImpl} (states and the
 * RFC 3261 §12 dialog state it builds subsequent requests from), the per-shard
 * {@link io.sipline.container.session.SessionTable}, {@link io.sipline.container.session.ServletTimerImpl}, and the two
 * seams to the rest of the container: {@link io.sipline.container.session.ContainerShard} (the shard: ids, clock,
 * timing wheel, wire) and {@link io.sipline.container.session.RunningApplication} (the application: listeners,
 * servlets).
 */
package io.sipline.container.session;
