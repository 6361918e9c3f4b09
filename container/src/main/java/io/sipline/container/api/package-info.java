/**
 * The JSR 289 objects an application holds, and the seams dispatch implements for them. Messages (§5):
 * {@link io.sipline.container.api.SipServletRequestImpl} and {@link io.sipline.container.api.SipServletResponseImpl},
 * each one copy of its bytes plus an offset index ({@link io.sipline.container.api.MessageHeaders}; a received
 * message's index in the tail of that copy), written by {@link io.sipline.container.api.MessageWriter} (the header
 * lines by {@code HeaderSectionWriter}) straight into a pooled buffer. Sessions and timers (§6, §22):
 * {@link io.sipline.container.api.SipApplicationSessionImpl}, {@link io.sipline.container.api.SipSessionImpl} (the
 * JSR 289 face of a session; its dialog a record of the stack's dialog layer, held by {@code SessionDialog}; derived
 * sessions in {@code SessionFork}), the
 * shard's {@link io.sipline.container.api.SessionTable} and {@link io.sipline.container.api.ServletTimerImpl}.
 * <p>
 * The seams: {@link io.sipline.container.api.ContainerShard} (the shard: ids, clock, timing wheel, wire),
 * {@link io.sipline.container.api.RunningApplication} (listeners, servlets), {@link io.sipline.container.api.AckWait}
 * and {@link io.sipline.container.api.ResponseRetransmission} (the UAS retransmissions),
 * {@link io.sipline.container.api.SessionProxy} (the proxy). This package depends on {@code address} and
 * {@code security} only; {@code dispatch}, {@code proxy} and {@code factory} depend on it, never the reverse.
 * <p>
 * Threading: every object here belongs to the shard its Call-ID and tags encode; an application's own thread is
 * handed to that shard ({@code ContainerShard.callAndWait}).
 */
package io.sipline.container.api;
