package io.sipline.container.api;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.sipline.sip.dialog.DialogRecords;


/**
 * What sessions and messages need from the shard that owns them (implemented by the dispatch layer, one per shard):
 * identifiers that route back to this shard, the shard's clock and timing wheel, and the wire.
 * <p>
 * Threading: {@link #onShardThread()}, {@link #execute} and the id methods may be called from any thread (an
 * application may use its sessions from a thread of its own); everything else only on the shard's thread. Calls
 * from elsewhere are handed to the shard with {@link #execute}.
 */
public interface ContainerShard
{
    /** The shard's index. */
    int index();

    /** True when the caller runs on this shard's event loop. */
    boolean onShardThread();

    /** Runs a task on the shard (at once when already there). */
    void execute(Runnable task);

    /**
     * Runs {@code action} on the shard and returns its result, or throws what it threw: at once when there; from an
     * application's own thread (an application on virtual threads) as a task that the thread waits for, so that the
     * state the shard owns is only ever touched on the shard. The shard never waits for an application thread, so the
     * wait ends.
     */
    default <T> T callAndWait(final Supplier<T> action)
    {
        return onShardThread() ? action.get() : callAndWait(this::execute, action);
    }

    /**
     * Runs {@code action} as a task of {@code owner} (a shard, or an application's virtual-thread lane) and waits for
     * its result, or throws what it threw. The owner must never wait for the caller.
     */
    static <T> T callAndWait(final Executor owner, final Supplier<T> action)
    {
        final CompletableFuture<T> done = new CompletableFuture<>();
        owner.execute(() ->
        {
            try
            {
                done.complete(action.get());
            }
            catch (final RuntimeException | Error e)
            {
                done.completeExceptionally(e);
            }
        });
        try
        {
            return done.join();
        }
        catch (final CompletionException e)
        {
            if (e.getCause() instanceof RuntimeException r)
            {
                throw r;
            }
            if (e.getCause() instanceof Error r)
            {
                throw r;
            }
            throw e;
        }
    }

    /**
     * The dialog records of this shard (RFC 3261 §12, a pool and the rules that fill it) on its thread; on any other
     * thread a set of its own over records that are not pooled.
     */
    DialogRecords dialogRecords();

    /** A fresh tag that encodes this shard (any thread). */
    String newTag();

    /** A fresh Call-ID that encodes this shard (any thread). */
    String newCallId();

    /**
     * A fresh local tag that encodes this shard, as text that need not be a String: the shard's own kind keeps it as
     * its numbers ({@link IdText}) until someone reads it as a String (any thread).
     */
    default CharSequence newTagText()
    {
        return newTag();
    }

    /** A fresh Call-ID that encodes this shard, as {@link #newTagText} (any thread). */
    default CharSequence newCallIdText()
    {
        return newCallId();
    }

    /** A fresh magic-cookie branch that encodes this shard (any thread). */
    String newBranch();

    /** The shard's clock, in milliseconds since the epoch (any thread). */
    long currentTimeMillis();

    /** Schedules {@code target} after {@code delayMillis} on the shard's wheel; returns the timer id. Shard only. */
    long schedule(long delayMillis, TimerTarget target);

    /** Cancels a timer from {@link #schedule}. Shard only. */
    void cancel(long timerId);

    /** Sends a request: a client transaction, the ACK of a 2xx statelessly, a CANCEL. Shard only. */
    void send(SipServletRequestImpl request);

    /** Sends a response on its request's server transaction. Shard only. */
    void send(SipServletResponseImpl response);

    /**
     * The container needs nothing more from {@code request}'s transaction (its final response went or came, and its
     * session is over or the request is not an INVITE): the transaction lets go of the request, so that the request,
     * its responses and its session are garbage while the transaction waits out its RFC 3261 timers (up to 64*T1).
     * No-op when the transaction already ended or carries another request. Shard only.
     */
    void release(SipServletRequestImpl request);

    /**
     * Calls the session's handler servlet with a request or a response, as the container does for what it receives
     * (a supervised proxy's responses, JSR 289 §10.2.4; a subsequent request through a record-routing proxy), then
     * runs {@code afterwards} on the shard once the servlet returned (at once for applications on the shard; after
     * the virtual thread's call for blocking ones). Shard only.
     */
    void deliver(SipSessionImpl session, SipServletRequestImpl request, SipServletResponseImpl response,
        Runnable afterwards);

    /**
     * The proxy for a received request (JSR 289 §10.1, {@code SipServletRequest.getProxy()}), made by the dispatch
     * layer, which knows the shard's addresses and routes its branches' responses. Shard only.
     */
    javax.servlet.sip.Proxy proxyFor(SipServletRequestImpl request);

    /** This shard's session tables. Shard only. */
    SessionTable sessions();

    /** The host the container writes in Via and Contact. */
    String localHost();

    /** The port the container writes in Via and Contact. */
    int localPort();

    /** The Contact value the container writes for itself, e.g. {@code <sip:192.0.2.1:5060>}. */
    String contact();

    /** A target on the shard's wheel. */
    interface TimerTarget
    {
        /** The timer fired on the shard's thread. */
        void onTimer(long timerId);
    }
}
