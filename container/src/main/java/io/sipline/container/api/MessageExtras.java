package io.sipline.container.api;

import java.util.Map;

import javax.servlet.sip.Address;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.SipServletMessage.HeaderForm;

import io.sipline.container.security.SipPrincipal;

/**
 * The state few messages need, made on first use, so that every {@link SipServletMessageImpl} holds one reference
 * instead of one per field: the {@link MessageParties}, JSR 289 attributes, a character encoding, a header form; for
 * a request, the popped Route as text or Address (JSR 289 §15.5), the route back token, the popped Route's flow
 * token, a strict router's next hop and the request's proxy (JSR 289 §10.1); the authenticated user, which only an
 * application with security constraints has.
 * <p>
 * Threading: owned by its message (see {@link SipServletMessageImpl}).
 */
final class MessageExtras extends MessageParties
{
    Map<String, Object> attributes;
    String characterEncoding;
    HeaderForm headerForm = HeaderForm.DEFAULT;
    Address poppedRoute;
    String poppedRouteText;
    /** The token of the route back to this container pushed for ROUTE_BACK (JSR 289 §15.4.1), or null. */
    String routeBackToken;
    /** The RFC 5626 flow token of the Route of ours the container popped (a WebSocket client's flow), or null. */
    String flowToken;
    String nextHopUri;
    /** Address and Parameterable objects handed out for writable headers, written back when sent. */
    HeaderBindings bound;
    /** The proxy of a received request, once the application asked for it. */
    Proxy proxy;
    /** The user digest authentication found for the request (JSR 289, Security), or null. */
    SipPrincipal principal;
}
