/**
 * WebRTC legs for the media service: an ICE-lite agent and a DTLS-SRTP endpoint per leg, fed by the relay's media
 * threads, and the SDP attributes they write and read.
 */
package io.sipline.media.webrtc;
