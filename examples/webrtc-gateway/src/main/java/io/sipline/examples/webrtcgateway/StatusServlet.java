package io.sipline.examples.webrtcgateway;

import java.io.IOException;

import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

import io.sipline.media.service.MediaService;

/**
 * {@code GET /webrtc-gateway/status}: whether the server has a media service, how many media anchors are active
 * (server-wide, so 0 once every call has ended and freed its ports) and how many browsers are registered, as JSON.
 * <p>
 * Threading: HTTP threads; what it reads is thread-safe.
 */
public final class StatusServlet extends HttpServlet
{
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(final HttpServletRequest request, final HttpServletResponse response) throws IOException
    {
        final MediaService media = (MediaService)getServletContext().getAttribute(MediaService.ATTRIBUTE);
        final Browsers browsers = (Browsers)getServletContext().getAttribute(Browsers.ATTRIBUTE);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write("{\"mediaService\":" + (null != media) +
            ",\"activeAnchors\":" + (null == media ? 0 : media.activeAnchors()) +
            ",\"registeredBrowsers\":" + (null == browsers ? 0 : browsers.size(System.currentTimeMillis())) + "}\n");
    }
}
