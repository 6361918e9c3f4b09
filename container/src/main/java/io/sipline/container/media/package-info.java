/**
 * The media service of {@code io.sipline.media.service} in the container: started with the server and published to
 * every application's {@code ServletContext}.
 */
package io.sipline.container.media;
