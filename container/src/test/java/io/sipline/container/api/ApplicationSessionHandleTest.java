package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.servlet.http.HttpSession;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipApplicationSessionAttributeListener;
import javax.servlet.sip.SipApplicationSessionBindingEvent;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.sipline.sip.dialog.DialogRecords;

/**
 * The hand-off of an HTTP thread's calls into an application session: every call runs on the session's shard (or
 * its virtual-thread lane), in turn with the shard's own work, and what it throws reaches the caller.
 */
class ApplicationSessionHandleTest
{
    private final ExecutorService shardThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-shard"));
    private final ThreadedHost host = new ThreadedHost(new FakeHost(), shardThread);
    private final FakeApp app = new FakeApp();

    @AfterEach
    void stop() throws InterruptedException
    {
        shardThread.shutdownNow();
        assertTrue(shardThread.awaitTermination(5, TimeUnit.SECONDS));
    }

    private SipApplicationSessionImpl newSession()
    {
        return host.callAndWait(() -> new SipApplicationSessionImpl(app, host, null));
    }

    @Test
    void attributesAreSetOnTheShardThread()
    {
        final List<String> threads = new ArrayList<>();
        app.listeners.add(new SipApplicationSessionAttributeListener()
        {
            @Override
            public void attributeAdded(final SipApplicationSessionBindingEvent ev)
            {
                threads.add(Thread.currentThread().getName());
            }

            @Override
            public void attributeRemoved(final SipApplicationSessionBindingEvent ev)
            {
            }

            @Override
            public void attributeReplaced(final SipApplicationSessionBindingEvent ev)
            {
            }
        });
        final ApplicationSessionHandle handle = new ApplicationSessionHandle(newSession());
        handle.setAttribute("caller", "alice");
        assertEquals(List.of("test-shard"), threads);
        assertEquals("alice", handle.getAttribute("caller"));
    }

    @Test
    void callsWaitForTheShardsCurrentWork() throws Exception
    {
        final ApplicationSessionHandle handle = new ApplicationSessionHandle(newSession());
        final CountDownLatch busy = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        shardThread.execute(() ->
        {
            busy.countDown();
            try
            {
                release.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            handle.session().setAttribute("step", "shard");
        });
        assertTrue(busy.await(5, TimeUnit.SECONDS));
        final CompletableFuture<Object> read = CompletableFuture.supplyAsync(() -> handle.getAttribute("step"));
        assertThrows(TimeoutException.class, () -> read.get(200, TimeUnit.MILLISECONDS),
            "the HTTP thread's read ran beside the shard's work");
        release.countDown();
        assertEquals("shard", read.get(5, TimeUnit.SECONDS), "the read ran after the shard's work, in turn");
    }

    @Test
    void whatTheCallThrowsReachesTheCaller()
    {
        final ApplicationSessionHandle handle = new ApplicationSessionHandle(newSession());
        handle.invalidate();
        assertFalse(handle.isValid());
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> handle.getAttribute("x"));
        assertTrue(e.getMessage().contains("invalidated"), e.getMessage());
    }

    @Test
    void aBlockingApplicationsCallsRunOnItsLane() throws Exception
    {
        final SipApplicationSessionImpl session = newSession();
        final ExecutorService lane = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-lane"));
        try
        {
            session.lane(lane);
            final ApplicationSessionHandle handle = new ApplicationSessionHandle(session);
            assertEquals("test-lane", handle.call(() -> Thread.currentThread().getName()));
        }
        finally
        {
            lane.shutdownNow();
        }
    }

    @Test
    void encodedUrlCarriesTheSessionIdBeforeTheFragment() throws Exception
    {
        final ApplicationSessionHandle handle = new ApplicationSessionHandle(newSession());
        final URL encoded = handle.encodeURL(URI.create("http://127.0.0.1:8080/c2c/status?x=1#top").toURL());
        assertEquals("http://127.0.0.1:8080/c2c/status?x=1&" + SipApplicationSessionImpl.ENCODED_URL_PARAMETER + "="
            + handle.getId() + "#top", encoded.toString());
        final URL plain = handle.encodeURL(URI.create("http://127.0.0.1/c2c").toURL());
        assertEquals("http://127.0.0.1/c2c?sipappsessionid=" + handle.getId(), plain.toString());
    }

    @Test
    void boundHttpSessionsAreItsHttpProtocolSessions()
    {
        final SipApplicationSessionImpl session = newSession();
        final ApplicationSessionHandle handle = new ApplicationSessionHandle(session);
        final HttpSession http = httpSession("h1");
        handle.call(() ->
        {
            session.addHttpSession(http);
            session.addHttpSession(http); // twice: bound once
            return null;
        });
        final List<Object> bound = new ArrayList<>();
        handle.getSessions("HTTP").forEachRemaining(bound::add);
        assertEquals(List.of(http), bound);
        assertSame(http, handle.getSession("h1", SipApplicationSession.Protocol.HTTP));
        assertFalse(handle.isReadyToInvalidate(), "a bound HTTP session keeps the application session");
        handle.call(() ->
        {
            session.removeHttpSession("h1");
            return null;
        });
        assertFalse(handle.getSessions("HTTP").hasNext());
        assertTrue(handle.isReadyToInvalidate());
        assertThrows(IllegalArgumentException.class, () -> handle.getSessions("XMPP"));
    }

    /** JSR 289 §6.1.2.2.2 and §6.3: what a request reached stays valid until the request ends. */
    @Test
    void anHttpRequestsSessionsAreNotInvalidatedWhenReadyBeforeTheRequestEnds()
    {
        final SipApplicationSessionImpl session = newSession();
        final ApplicationSessionHandle handle = new ApplicationSessionHandle(session);
        final HttpRequestScope request = HttpRequestScope.open();
        try
        {
            handle.setAttribute("call", "c1");
            host.callAndWait(() ->
            {
                session.checkReady(); // the shard handled a response meanwhile: no protocol session is left
                return null;
            });
            assertTrue(handle.isValid(), "the request's session was invalidated under it");
            assertEquals("c1", handle.getAttribute("call"));
        }
        finally
        {
            request.close();
        }
        assertFalse(handle.isValid(), "ready when the request ended: invalidated then");
    }

    @Test
    void withoutARequestASessionIsInvalidatedWhenReady()
    {
        final SipApplicationSessionImpl session = newSession();
        final ApplicationSessionHandle handle = new ApplicationSessionHandle(session);
        handle.setAttribute("call", "c1");
        host.callAndWait(() ->
        {
            session.checkReady();
            return null;
        });
        assertFalse(handle.isValid());
    }

    @Test
    void aHandleEqualsItsSessionAndUnwrapsToIt()
    {
        final SipApplicationSessionImpl session = newSession();
        final ApplicationSessionHandle handle = new ApplicationSessionHandle(session);
        assertEquals(handle, new ApplicationSessionHandle(session));
        assertTrue(handle.equals(session));
        assertSame(session, ApplicationSessionHandle.unwrap(handle));
        assertSame(session, ApplicationSessionHandle.unwrap(session));
    }

    private static HttpSession httpSession(final String id)
    {
        return (HttpSession) Proxy.newProxyInstance(HttpSession.class.getClassLoader(),
            new Class<?>[] {HttpSession.class}, (proxy, method, args) -> switch (method.getName())
            {
                case "getId" -> id;
                case "hashCode" -> id.hashCode();
                case "equals" -> proxy == args[0];
                default -> null;
            });
    }

    /** A {@link FakeHost} whose shard is a thread of its own: what runs elsewhere is handed to that thread. */
    private static final class ThreadedHost implements ContainerShard
    {
        private final FakeHost fake;
        private final ExecutorService thread;
        private volatile Thread shard;

        ThreadedHost(final FakeHost fake, final ExecutorService thread)
        {
            this.fake = fake;
            this.thread = thread;
            thread.execute(() -> shard = Thread.currentThread());
        }

        @Override
        public int index()
        {
            return 0;
        }

        @Override
        public boolean onShardThread()
        {
            return Thread.currentThread() == shard;
        }

        @Override
        public void execute(final Runnable task)
        {
            thread.execute(task);
        }

        @Override
        public DialogRecords dialogRecords()
        {
            return fake.dialogRecords();
        }

        @Override
        public String newTag()
        {
            return fake.newTag();
        }

        @Override
        public String newCallId()
        {
            return fake.newCallId();
        }

        @Override
        public String newBranch()
        {
            return fake.newBranch();
        }

        @Override
        public long currentTimeMillis()
        {
            return fake.currentTimeMillis();
        }

        @Override
        public long schedule(final long delayMillis, final TimerTarget target)
        {
            return fake.schedule(delayMillis, target);
        }

        @Override
        public void cancel(final long timerId)
        {
            fake.cancel(timerId);
        }

        @Override
        public void send(final SipServletRequestImpl request)
        {
            fake.send(request);
        }

        @Override
        public void send(final SipServletResponseImpl response)
        {
            fake.send(response);
        }

        @Override
        public void release(final SipServletRequestImpl request)
        {
            fake.release(request);
        }

        @Override
        public void deliver(final SipSessionImpl session, final SipServletRequestImpl request,
            final SipServletResponseImpl response, final Runnable afterwards)
        {
            fake.deliver(session, request, response, afterwards);
        }

        @Override
        public javax.servlet.sip.Proxy proxyFor(final SipServletRequestImpl request)
        {
            return fake.proxyFor(request);
        }

        @Override
        public SessionTable sessions()
        {
            return fake.sessions();
        }

        @Override
        public String localHost()
        {
            return fake.localHost();
        }

        @Override
        public int localPort()
        {
            return fake.localPort();
        }

        @Override
        public String contact()
        {
            return fake.contact();
        }
    }
}
