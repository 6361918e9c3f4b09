package io.sipline.container.api;

import java.util.List;

import javax.servlet.ServletContext;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.SipServlet;

import io.sipline.container.security.DigestClient;

/**
 * What sessions need from the running application they belong to (implemented by the dispatch layer's registry
 * entry): its name, servlet context, servlets by name, listeners by type, session timeout, and the helpers that
 * create requests.
 * <p>
 * Threading: immutable after the application started; read from any shard.
 */
public interface RunningApplication
{
    /** The application name (JSR 289 §18.2 app-name). */
    String name();

    ServletContext servletContext();

    /** The servlet named {@code name}, initialised, or null. */
    SipServlet servlet(String name);

    /** The handler of SIP sessions the application creates itself: the main servlet, else the first declared. */
    String defaultServlet();

    /** The application's listeners of a type, in declaration order (an empty list when none). */
    <T> List<T> listeners(Class<T> type);

    /** The application session timeout in minutes from session-config (JSR 289 §6.1.2.2); 0 or less: never. */
    int sessionTimeoutMinutes();

    /** The application's class loader (the thread context class loader while its code runs). */
    ClassLoader classLoader();

    /** The application's B2BUA helper: one for all its application sessions (it keeps no state of a call). */
    B2buaHelper b2buaHelper();

    /** The container's digest client, for {@code SipServletRequest.addAuthHeader} (thread-safe, shared). */
    DigestClient digestClient();

    /**
     * An application session of this application was created ({@code delta} 1) or invalidated (-1) on shard
     * {@code shard}, for the admin port's count (any thread; counts only).
     */
    default void sessionsChanged(final int shard, final int delta)
    {
    }

    /**
     * Where the sessions of a distributable application ({@code <distributable/>}) leave their snapshots in a cluster;
     * null for an application that is not distributable or a server outside a cluster, which then pay nothing.
     */
    default io.sipline.container.replication.SnapshotSink replication()
    {
        return null;
    }
}
