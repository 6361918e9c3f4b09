/**
 * A converged application (JSR 289 §13) that makes the server a WebRTC-to-SIP gateway: a browser page served by the
 * HTTP half calls over SIP over WebSocket (RFC 7118) with SIP.js, and the SIP half is a B2BUA that anchors the
 * call's media in the server through the container's media service (the {@code ServletContext} attribute
 * {@code io.sipline.media.MediaService}): DTLS-SRTP and ICE-lite toward the browser, plain RTP toward the phone,
 * and the other way round for a phone calling a browser registered with the application.
 */
package io.sipline.examples.webrtcgateway;
