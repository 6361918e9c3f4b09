package io.sipline.container.api;

import java.util.List;
import java.util.Map;

import javax.servlet.http.HttpSession;

/**
 * What few application sessions use, kept apart so that every {@link SipApplicationSessionImpl} holds one reference
 * instead of one per field (one is made for every call): the {@code @SipApplicationKey} key (JSR 289 §15.11.2), the
 * HTTP sessions bound to it (a converged application's, §13), its servlet timers (§6.1.3, in creation order) and the
 * version of its last snapshot to the cluster's grid. Made on the first use of any.
 * <p>
 * Threading: owned by its application session (see {@link SipApplicationSessionImpl}).
 */
final class ApplicationExtras
{
    /** The key the session was made for, or null. */
    String key;
    /** The HTTP sessions bound to the application session, made on first use. */
    List<HttpSession> httpSessions;
    /** The pending servlet timers by id, in creation order, made on first use. */
    Map<String, ServletTimerImpl> timers;
    /** The version of the last snapshot written. */
    long snapshotVersion;
}
