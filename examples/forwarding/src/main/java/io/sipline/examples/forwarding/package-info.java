/**
 * A call-forwarding back-to-back user agent written against the standard SIP Servlet 1.1 API (JSR 289) only, shared
 * by the b2bua and registrar examples: {@link io.sipline.examples.forwarding.ForwardingServlet}.
 */
package io.sipline.examples.forwarding;
