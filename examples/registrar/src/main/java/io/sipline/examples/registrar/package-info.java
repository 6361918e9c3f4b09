/**
 * The registrar example: REGISTER with a location store and expiry (RFC 3261 §10.3), and INVITEs to a registered
 * user forwarded to its contact ({@link io.sipline.examples.registrar.RegistrarServlet}).
 */
package io.sipline.examples.registrar;
