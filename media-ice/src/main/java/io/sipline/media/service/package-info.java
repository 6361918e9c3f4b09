/**
 * The media service for SIP applications: {@link io.sipline.media.service.MediaService} anchors a call's media in
 * the server between legs of different {@link io.sipline.media.service.MediaProfile}s, through
 * {@link io.sipline.media.service.MediaAnchor}s, and reports idle media and failed handshakes to a
 * {@link io.sipline.media.service.MediaListener}. The container publishes it as the {@code ServletContext}
 * attribute {@value io.sipline.media.service.MediaService#ATTRIBUTE}.
 *
 * <p>Threading: the public API is thread-safe; packets never reach application code.
 */
package io.sipline.media.service;
