package io.sipline.container.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import io.sipline.container.admin.HttpStatus;

/**
 * Counts the web engine's requests per application for {@code /metrics} ({@link HttpStatus}): a handler in front of
 * the applications' contexts that finds the application by the request's context path (the first path segment),
 * counts the request as active until its response completes, then by its status class, or as failed when it ended
 * without a complete response. A request for no application's path counts under {@code none}.
 * <p>
 * Threading: {@link #handle} and the completions run on the engine's threads; {@link #serve} and {@link #stopServing}
 * on the deploying thread; {@link #applications} on the admin thread. Counters are {@link LongAdder}s, the path map
 * a concurrent map: no lock, and nothing here runs on a shard.
 */
final class HttpMetrics extends Handler.Wrapper implements HttpStatus
{
    private static final String NONE = "none";

    /** Counts by application name: kept across a redeploy, so that the counters do not restart. */
    private final Map<String, Counts> byName = new ConcurrentHashMap<>();
    private final Map<String, Counts> byContextPath = new ConcurrentHashMap<>();
    private final Counts unmatched = new Counts(NONE);

    /** Counts the requests for {@code contextPath} under {@code application}. */
    void serve(final String contextPath, final String application)
    {
        byContextPath.put(contextPath, byName.computeIfAbsent(application, Counts::new));
    }

    /** Requests for {@code contextPath} count under {@code none} again. */
    void stopServing(final String contextPath)
    {
        byContextPath.remove(contextPath);
    }

    @Override
    public boolean handle(final Request request, final Response response, final Callback callback) throws Exception
    {
        final Counts counts = countsFor(request.getHttpURI().getPath());
        counts.active.increment();
        final Completion completion = new Completion(counts, response, callback);
        final boolean handled;
        try
        {
            handled = super.handle(request, response, completion);
        }
        catch (final Exception | Error e)
        {
            completion.count(-1); // the engine fails the request with its own callback, not this one
            throw e;
        }
        if (!handled)
        {
            completion.count(404); // the engine answers 404 with its own callback
        }
        return handled;
    }

    private Counts countsFor(final String path)
    {
        if (null == path || path.length() < 2)
        {
            return unmatched;
        }
        final int slash = path.indexOf('/', 1);
        final Counts counts = byContextPath.get(slash < 0 ? path : path.substring(0, slash));
        return null == counts ? unmatched : counts;
    }

    @Override
    public List<Application> applications()
    {
        final List<Application> all = new ArrayList<>(byName.values());
        all.sort((a, b) -> a.name().compareTo(b.name()));
        all.add(unmatched);
        return all;
    }

    /** The counters of one application. */
    private static final class Counts implements Application
    {
        private final String name;
        private final LongAdder[] responses = new LongAdder[STATUS_CLASSES.size()];
        private final LongAdder failed = new LongAdder();
        private final LongAdder active = new LongAdder();

        Counts(final String name)
        {
            this.name = name;
            for (int i = 0; i < responses.length; i++)
            {
                responses[i] = new LongAdder();
            }
        }

        @Override
        public String name()
        {
            return name;
        }

        @Override
        public long responses(final int index)
        {
            return responses[index].sum();
        }

        @Override
        public long failed()
        {
            return failed.sum();
        }

        @Override
        public long active()
        {
            return active.sum();
        }

        /** A request ended: with {@code status}, or failed when it is negative. */
        void ended(final int status)
        {
            active.decrement();
            final int index = status / 100 - 1;
            if (status < 0 || index < 0 || index >= responses.length)
            {
                failed.increment();
            }
            else
            {
                responses[index].increment();
            }
        }
    }

    /** The request's callback, counting its end once (the flag: whichever of the ends comes first). */
    private static final class Completion extends AtomicBoolean implements Callback
    {
        private static final long serialVersionUID = 1L;

        private final transient Counts counts;
        private final transient Response response;
        private final transient Callback callback;

        Completion(final Counts counts, final Response response, final Callback callback)
        {
            this.counts = counts;
            this.response = response;
            this.callback = callback;
        }

        void count(final int status)
        {
            if (compareAndSet(false, true))
            {
                counts.ended(status);
            }
        }

        @Override
        public void succeeded()
        {
            count(response.getStatus());
            callback.succeeded();
        }

        @Override
        public void failed(final Throwable x)
        {
            count(-1);
            callback.failed(x);
        }

        @Override
        public InvocationType getInvocationType()
        {
            return callback.getInvocationType();
        }
    }
}
