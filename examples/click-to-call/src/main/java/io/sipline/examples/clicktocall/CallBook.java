package io.sipline.examples.clicktocall;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The calls of the application for its status page: every call in progress and the last {@value #ENDED_KEPT} that
 * ended or failed. One instance per application, a {@code ServletContext} attribute ({@link #ATTRIBUTE}) that both
 * halves share.
 * <p>
 * Threading: any thread; the SIP servlet changes a call on that call's thread while HTTP threads read. A call that
 * has ended keeps its first reason.
 */
public final class CallBook
{
    /** The {@code ServletContext} attribute that holds the application's book. */
    public static final String ATTRIBUTE = CallBook.class.getName();

    /** Ended and failed calls kept for the status page; older ones are forgotten. */
    static final int ENDED_KEPT = 100;

    private final Map<String, Call> calls = new ConcurrentHashMap<>();
    private final Queue<String> ended = new ConcurrentLinkedQueue<>();

    /** Adds a new call. */
    public void add(final Call call)
    {
        calls.put(call.id(), call);
    }

    /** The call of this id, or null when there is none (any more). */
    public Call get(final String id)
    {
        return calls.get(id);
    }

    /** Every call known, newest first. */
    public List<Call> all()
    {
        final List<Call> all = new ArrayList<>(calls.values());
        all.sort(Comparator.comparing(Call::started).reversed());
        return all;
    }

    /**
     * Moves a call on to {@code state} for {@code why}, unless it has ended already.
     *
     * @return whether it moved.
     */
    public boolean update(final String id, final Call.State state, final String why)
    {
        final boolean[] moved = new boolean[1];
        calls.computeIfPresent(id, (key, call) ->
        {
            if (call.state().isFinal())
            {
                return call;
            }
            moved[0] = true;
            return call.with(state, why);
        });
        if (moved[0] && state.isFinal())
        {
            ended.add(id);
            while (ended.size() > ENDED_KEPT)
            {
                final String oldest = ended.poll();
                if (null != oldest)
                {
                    calls.remove(oldest);
                }
            }
        }
        return moved[0];
    }
}
