/**
 * The b2bua example: a call-forwarding back-to-back user agent whose target comes from a context parameter
 * ({@link io.sipline.examples.b2bua.CallForwardingServlet}).
 */
package io.sipline.examples.b2bua;
