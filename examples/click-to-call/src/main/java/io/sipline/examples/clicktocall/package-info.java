/**
 * A converged application (JSR 289 §13) written against the standard API only: third-party call control (RFC 3725)
 * started, listed and ended over HTTP, with the SIP legs handled by a SIP servlet.
 */
package io.sipline.examples.clicktocall;
