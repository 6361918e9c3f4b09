package io.sipline.container.proxy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import javax.servlet.sip.URI;

/**
 * The branches of one proxy (RFC 3261 §16.5, §16.6): the ones the application made, in order; every branch ever made,
 * recursed ones too (§16.7 step 4), for the in-flight test and so that a target is tried once; and the branches of a
 * sequential search not started yet.
 * <p>
 * Threading: not threadsafe; on the shard of the proxy's application session. The lists are walked by index, so that
 * no iterator is made per call on the shard; the list of every branch and the queue are made on first use.
 */
final class ProxyBranches
{
    private final List<ProxyBranchImpl> top = new ArrayList<>(2);
    /** Every branch ever made; null while that is {@link #top} (no 3xx was recursed on). */
    private List<ProxyBranchImpl> all;
    /** A sequential search's branches not started yet; made on first use (a parallel proxy has none). */
    private ArrayDeque<ProxyBranchImpl> waiting;

    /** The branches the application made, in order (live; the caller copies what it hands out). */
    List<ProxyBranchImpl> top()
    {
        return top;
    }

    /** Every branch ever made, recursed ones too. */
    List<ProxyBranchImpl> all()
    {
        return null == all ? top : all;
    }

    int size()
    {
        return top.size();
    }

    ProxyBranchImpl get(final int i)
    {
        return top.get(i);
    }

    /** A branch the application made. */
    void add(final ProxyBranchImpl branch)
    {
        top.add(branch);
        if (null != all)
        {
            all.add(branch);
        }
    }

    /** A branch made by recursing on a 3xx of another branch (§16.7 step 4). */
    void addRecursed(final ProxyBranchImpl branch)
    {
        if (null == all)
        {
            all = new ArrayList<>(top);
        }
        all.add(branch);
    }

    boolean hasWaiting()
    {
        return null != waiting && !waiting.isEmpty();
    }

    void clearWaiting()
    {
        if (null != waiting)
        {
            waiting.clear();
        }
    }

    /** Queues a branch at the end of a sequential search. */
    void queue(final ProxyBranchImpl branch)
    {
        waiting().add(branch);
    }

    /** Queues a branch to be tried next in a sequential search (a recursed branch goes before its siblings). */
    void queueFirst(final ProxyBranchImpl branch)
    {
        waiting().addFirst(branch);
    }

    /** The next branch of a sequential search, taken off the queue; null when none waits. */
    ProxyBranchImpl nextWaiting()
    {
        return null == waiting ? null : waiting.poll();
    }

    private ArrayDeque<ProxyBranchImpl> waiting()
    {
        if (null == waiting)
        {
            waiting = new ArrayDeque<>(4);
        }
        return waiting;
    }

    /**
     * Whether a branch is still going: sent and without a final response. {@code forSearch}: a branch cancelled by
     * its timeout no longer holds up a sequential search; it still holds up the end of the search until its 487.
     */
    boolean inFlight(final boolean forSearch)
    {
        final List<ProxyBranchImpl> every = all();
        for (int i = 0; i < every.size(); i++)
        {
            final ProxyBranchImpl b = every.get(i);
            if (b.isStarted() && !b.isDone() && !(forSearch && b.isTimedOut()))
            {
                return true;
            }
        }
        return false;
    }

    /** CANCELs every branch still going but {@code except} (RFC 3261 §16.7 step 10, §16.10). */
    void cancelPending(final ProxyBranchImpl except, final String reason)
    {
        final List<ProxyBranchImpl> every = all();
        for (int i = 0; i < every.size(); i++)
        {
            final ProxyBranchImpl b = every.get(i);
            if (b != except && b.isStarted() && !b.isDone())
            {
                b.cancelBranch(reason);
            }
        }
    }

    /** The branch, recursed ones included, whose target is {@code uri}; null when none. */
    ProxyBranchImpl branchFor(final URI uri)
    {
        final List<ProxyBranchImpl> every = all();
        for (int i = 0; i < every.size(); i++)
        {
            final ProxyBranchImpl b = every.get(i);
            if (b.target().equals(uri))
            {
                return b;
            }
        }
        return null;
    }
}
