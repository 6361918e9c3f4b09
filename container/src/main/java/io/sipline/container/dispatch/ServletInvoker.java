package io.sipline.container.dispatch;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.Executor;
import javax.servlet.sip.SipErrorEvent;
import javax.servlet.sip.SipErrorListener;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.TooManyHopsException;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.SipApplicationSessionImpl;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.stack.StackShard;

/**
 * Calls into applications (JSR 289 §6.3, §15): a servlet or a {@link SipErrorListener}, with the application's class
 * loader as context class loader, on the shard's thread or, for an application marked blocking, on its application
 * session's virtual lane; an exception is answered 500 when still possible, counted and logged once per kind, and
 * never reaches the shard. Keeps the call depth (readiness of application sessions is checked at depth 0) and the
 * current call for the slow-call watchdog ({@link #checkSlow}).
 * <p>
 * Threading: owned by the shard's event loop; {@link #checkSlow} runs on the watchdog's thread and reads only the
 * volatile fields of the current call.
 */
final class ServletInvoker
{
    private final ContainerShardImpl container;
    private final StackShard shard;
    private final ContainerShardImpl.Counters counters;
    /** Calls in progress into applications on this shard (re-entrant sends check readiness only at depth 0). */
    private int dispatchDepth;
    private volatile Thread thread;
    /** When the current servlet call started (0 when none), for the slow-call watchdog. */
    private volatile long callStartNs;
    private volatile RunningApplicationImpl callApplication;
    private volatile String callHandler;
    private long reportedCallStartNs;

    ServletInvoker(
        final ContainerShardImpl container, final StackShard shard, final ContainerShardImpl.Counters counters)
    {
        this.container = container;
        this.shard = shard;
        this.counters = counters;
    }

    /** A container step that may send begins: sends in it leave the readiness check to its end. */
    void enter()
    {
        dispatchDepth++;
    }

    /** The step of {@link #enter} ended. */
    void exit()
    {
        dispatchDepth--;
    }

    /**
     * Calls the session's handler servlet with a request or a response, on this thread, with the application's
     * class loader; an exception answers the request with 500 (when still possible) and is counted and logged once
     * per kind. Afterwards, sessions that became ready to invalidate are invalidated.
     */
    void invoke(final SipSessionImpl session, final SipServletRequestImpl request,
        final SipServletResponseImpl response)
    {
        invoke(session, request, response, null);
    }

    /**
     * As {@link #invoke(SipSessionImpl, SipServletRequestImpl, SipServletResponseImpl)}, then {@code afterwards}
     * (may be null) on this shard once the servlet returned, before the sessions' readiness is checked.
     */
    void invoke(final SipSessionImpl session, final SipServletRequestImpl request,
        final SipServletResponseImpl response, final Runnable afterwards)
    {
        final SipApplicationSessionImpl appSession = session.appSession();
        final RunningApplicationImpl app = (RunningApplicationImpl)appSession.application();
        final String handler = session.handler();
        if (app.virtualThreads())
        {
            // io.sipline.threading=virtual: the application may block; its calls leave the shard for a virtual
            // thread, one at a time per application session; what it sends comes back to the shard as tasks.
            lane(appSession).execute(() ->
            {
                runServlet(app, handler, request, response);
                container.execute(() ->
                {
                    runAfterwards(afterwards);
                    appSession.checkReady();
                });
            });
            return;
        }
        dispatchDepth++;
        thread = Thread.currentThread();
        callApplication = app;
        callHandler = handler;
        callStartNs = System.nanoTime();
        try
        {
            runServlet(app, handler, request, response);
        }
        finally
        {
            callStartNs = 0;
        }
        try
        {
            runAfterwards(afterwards);
        }
        finally
        {
            dispatchDepth--;
        }
        if (0 == dispatchDepth)
        {
            appSession.checkReady();
        }
    }

    /**
     * Tells the application's {@link SipErrorListener}s that a 2xx got no ACK ({@code noAck}) or a reliable
     * provisional response no PRACK (JSR 289 §6.4.2, §5.7.1), like any other callback of the application: on this
     * shard, or, for an application on virtual threads, on its application session's virtual lane, serialized with
     * its servlet calls. {@code afterwards} (may be null) then runs on this shard, and the sessions' readiness is
     * checked. Nothing is told once the session is invalid. A listener's exception is counted and logged once per
     * kind, with the application's class loader as context class loader during the calls.
     */
    void tellErrorListeners(final SipSessionImpl session, final SipErrorEvent event, final boolean noAck,
        final Runnable afterwards)
    {
        if (!session.isValid())
        {
            runAfterwards(afterwards);
            return;
        }
        final SipApplicationSessionImpl appSession = session.appSession();
        final RunningApplicationImpl app = (RunningApplicationImpl)appSession.application();
        final List<SipErrorListener> listeners = app.listeners(SipErrorListener.class);
        if (listeners.isEmpty())
        {
            runAfterwards(afterwards);
            return;
        }
        final Runnable calls = () ->
        {
            final Thread t = Thread.currentThread();
            final ClassLoader previous = t.getContextClassLoader();
            t.setContextClassLoader(app.classLoader());
            try
            {
                for (final SipErrorListener l : listeners)
                {
                    try
                    {
                        if (noAck)
                        {
                            l.noAckReceived(event);
                        }
                        else
                        {
                            l.noPrackReceived(event);
                        }
                    }
                    catch (final RuntimeException e)
                    {
                        counters.servletErrors.incrementAndGet();
                        ShardLog.logOnce("error-listener:" + app.name() + ":" + e.getClass().getName(),
                            "a SipErrorListener of " + app.name() + " threw", e);
                    }
                }
            }
            finally
            {
                t.setContextClassLoader(previous);
            }
        };
        if (app.virtualThreads())
        {
            lane(appSession).execute(() ->
            {
                calls.run();
                container.execute(() ->
                {
                    runAfterwards(afterwards);
                    appSession.checkReady();
                });
            });
            return;
        }
        calls.run();
        runAfterwards(afterwards);
    }

    /** What the container does once a servlet call returned (a proxy's forwarding); a failure is logged once. */
    private void runAfterwards(final Runnable afterwards)
    {
        if (null == afterwards)
        {
            return;
        }
        try
        {
            afterwards.run();
        }
        catch (final RuntimeException e)
        {
            ShardLog.logOnce("after:" + e.getClass().getName(), "the container's step after a servlet call failed", e);
        }
    }

    private static Executor lane(final SipApplicationSessionImpl appSession)
    {
        final Executor lane = appSession.lane();
        if (null == lane)
        {
            final VirtualLane made = new VirtualLane();
            appSession.lane(made);
            return made;
        }
        return lane;
    }

    /**
     * One servlet call with the application's class loader; an exception answers the request with 500 naming its
     * class (when still possible) and is counted and logged once per kind, never rethrown (but a VM error).
     */
    private void runServlet(final RunningApplicationImpl app, final String handler, final SipServletRequestImpl request,
        final SipServletResponseImpl response)
    {
        final SipServlet servlet = app.servlet(handler);
        final Thread t = Thread.currentThread();
        final ClassLoader previous = t.getContextClassLoader();
        t.setContextClassLoader(app.classLoader());
        try
        {
            if (null == servlet)
            {
                throw new IllegalStateException("no servlet named " + handler);
            }
            final long start = System.nanoTime();
            try
            {
                servlet.service(request, response);
            }
            finally
            {
                app.stats().servletCall(shard.index(), System.nanoTime() - start);
            }
        }
        catch (final Throwable e) // a servlet may throw anything; none of it may reach the shard
        {
            final boolean tooManyHops = e instanceof TooManyHopsException; // JSR 289 §10.1: answered 483
            if (!tooManyHops)
            {
                counters.servletErrors.incrementAndGet();
                ShardLog.logOnce("servlet:" + app.name() + ":" + e.getClass().getName(), "servlet " + app.name() + "/"
                    + handler + " threw while handling " + (null != request ? request : response), e);
            }
            if (null != request && request.isIncoming() && !"ACK".equals(request.getMethod())
                && null == request.finalResponse() && null != request.transaction())
            {
                try
                {
                    (tooManyHops ? request.createResponse(483, "Too Many Hops")
                        : request.createResponse(500, "Server Internal Error (" + e.getClass().getName() + ")"))
                        .send();
                }
                catch (final Exception again)
                {
                    ShardLog.logOnce("servlet-500", "the response after a servlet exception could not be sent", again);
                }
            }
            if (e instanceof VirtualMachineError fatal && !(e instanceof StackOverflowError))
            {
                throw fatal;
            }
        }
        finally
        {
            t.setContextClassLoader(previous);
        }
    }

    /** The slow-call watchdog's check (watchdog thread): a call longer than {@code limitNs} is counted and logged. */
    void checkSlow(final long nowNs, final long limitNs)
    {
        final long start = callStartNs;
        if (0 == start || nowNs - start < limitNs || start == reportedCallStartNs)
        {
            return;
        }
        reportedCallStartNs = start;
        counters.slowCalls.incrementAndGet();
        final RunningApplicationImpl app = callApplication;
        final String what = null == app ? null : app.name() + "/" + callHandler;
        final Thread t = thread;
        if (null != what && ShardLog.firstTime("slow:" + what) && null != t)
        {
            final Throwable trace = new Throwable("stack of shard " + shard.index() + " during the slow call");
            trace.setStackTrace(t.getStackTrace());
            ShardLog.LOG.log(Level.WARNING, what + " held shard " + shard.index() + " longer than "
                + limitNs / 1_000_000
                + " ms (logged once per servlet; counted every time). Blocking code should run on virtual threads: "
                + "context parameter " + RunningApplicationImpl.THREADING_PARAMETER + "=virtual", trace);
        }
    }

    void afterSend(final SipSessionImpl session)
    {
        if (0 == dispatchDepth)
        {
            session.appSession().checkReady();
        }
    }
}
