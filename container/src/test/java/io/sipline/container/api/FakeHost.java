package io.sipline.container.api;

import java.util.ArrayList;
import java.util.List;

import io.sipline.sip.dialog.DialogPool;
import io.sipline.sip.dialog.DialogRecords;


/**
 * A shard for unit tests: ids from a counter, a clock the test advances ({@link #advance}), timers fired by the
 * advance in deadline order, and the messages "sent" recorded in lists.
 */
public final class FakeHost implements ContainerShard
{
    /** Records are recycled as on a shard, so that a session that used one after its release would show. */
    public final DialogRecords dialogRecords = new DialogRecords(new DialogPool(16, 0));
    /** Requests whose transaction the sessions let go of, in order. */
    public final List<SipServletRequestImpl> released = new ArrayList<>();
    public final SessionTable table = new SessionTable();
    public final List<SipServletRequestImpl> requests = new ArrayList<>();
    public final List<SipServletResponseImpl> responses = new ArrayList<>();
    private final List<Object[]> timers = new ArrayList<>();
    private long now = 1_000_000L;
    private long ids;

    /** Advances the clock, firing every timer that falls due, in order. */
    public void advance(final long millis)
    {
        final long until = now + millis;
        while (true)
        {
            Object[] next = null;
            for (final Object[] t : timers)
            {
                if ((long)t[1] <= until && (null == next || (long)t[1] < (long)next[1]))
                {
                    next = t;
                }
            }
            if (null == next)
            {
                break;
            }
            timers.remove(next);
            now = Math.max(now, (long)next[1]);
            ((TimerTarget)next[2]).onTimer((long)next[0]);
        }
        now = until;
    }

    public int pendingTimers()
    {
        return timers.size();
    }

    @Override
    public int index()
    {
        return 0;
    }

    @Override
    public DialogRecords dialogRecords()
    {
        return dialogRecords;
    }

    @Override
    public boolean onShardThread()
    {
        return true;
    }

    @Override
    public void execute(final Runnable task)
    {
        task.run();
    }

    @Override
    public String newTag()
    {
        return String.format("s0000%013x", ++ids); // the ShardIds form, as the session table expects
    }

    @Override
    public String newCallId()
    {
        return "s00call" + (++ids) + "@test";
    }

    /** The container's own kind: a tag kept as its numbers, as a shard makes it. */
    @Override
    public CharSequence newTagText()
    {
        return IdText.tag(0, ++ids);
    }

    @Override
    public CharSequence newCallIdText()
    {
        return IdText.callId(0, ++ids, "test");
    }

    @Override
    public String newBranch()
    {
        return "z9hG4bKs00b" + (++ids);
    }

    @Override
    public long currentTimeMillis()
    {
        return now;
    }

    @Override
    public long schedule(final long delayMillis, final TimerTarget target)
    {
        final long id = ++ids;
        timers.add(new Object[] {id, now + delayMillis, target});
        return id;
    }

    @Override
    public void cancel(final long timerId)
    {
        timers.removeIf(t -> (long)t[0] == timerId);
    }

    @Override
    public void send(final SipServletRequestImpl request)
    {
        requests.add(request);
    }

    /** Calls made to the application (session, request, response), in order. */
    public final java.util.List<Object[]> delivered = new java.util.ArrayList<>();
    /** What the servlet does with a response it is given (doResponse), before the container goes on. */
    public java.util.function.Consumer<SipServletResponseImpl> servlet = r -> { };

    @Override
    public void deliver(final SipSessionImpl session, final SipServletRequestImpl request,
        final SipServletResponseImpl response, final Runnable afterwards)
    {
        delivered.add(new Object[] {session, request, response});
        if (null != response)
        {
            servlet.accept(response);
        }
        afterwards.run();
    }

    @Override
    public javax.servlet.sip.Proxy proxyFor(final SipServletRequestImpl request)
    {
        return new io.sipline.container.proxy.ProxyImpl(request, this, !request.isInitial());
    }

    @Override
    public void send(final SipServletResponseImpl response)
    {
        responses.add(response);
        response.sessionImpl().onResponseSent(response);
    }

    @Override
    public void release(final SipServletRequestImpl request)
    {
        released.add(request);
    }

    @Override
    public SessionTable sessions()
    {
        return table;
    }

    @Override
    public String localHost()
    {
        return "192.0.2.1";
    }

    @Override
    public int localPort()
    {
        return 5060;
    }

    @Override
    public String contact()
    {
        return "<sip:192.0.2.1:5060>";
    }
}
