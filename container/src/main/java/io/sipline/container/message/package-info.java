/**
 * The SIP message objects applications see (JSR 289 §5): {@link io.sipline.container.message.SipServletRequestImpl}
 * and {@link io.sipline.container.message.SipServletResponseImpl}. A received message is one exact copy of its bytes
 * plus an offset index ({@link io.sipline.container.message.MessageHeaders}); Strings and addresses are made on first
 * access. A message the container builds shares the bytes of the one it came from and keeps its edits as an overlay;
 * {@link io.sipline.container.message.MessageWriter} writes it straight into a pooled buffer.
 * System headers are protected here.
 */
package io.sipline.container.message;
