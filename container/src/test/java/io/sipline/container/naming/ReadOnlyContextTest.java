package io.sipline.container.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLClassLoader;
import java.util.Hashtable;
import java.util.concurrent.Callable;

import javax.naming.CompositeName;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.NameNotFoundException;
import javax.naming.NamingException;
import javax.naming.OperationNotSupportedException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The java:comp/env of an application as its code sees it through {@code new InitialContext()}. */
class ReadOnlyContextTest
{
    private URLClassLoader loader;
    private ApplicationNaming naming;

    @BeforeEach
    void start()
    {
        loader = TestBindings.loader("app-loader");
        naming = TestBindings.start("chat", loader, EnvEntry.of("maxRooms", "java.lang.Integer", "12"),
            EnvEntry.of("limits/greeting", null, "hello"), EnvEntry.of("unset", "java.lang.Long", null));
    }

    @AfterEach
    void stop() throws Exception
    {
        naming.close();
        loader.close();
    }

    private <T> T asApplication(final Callable<T> call) throws Exception
    {
        final Thread thread = Thread.currentThread();
        final ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try
        {
            return call.call();
        }
        finally
        {
            thread.setContextClassLoader(previous);
        }
    }

    @Test
    void shouldFindTheSipObjectsByTheirJsr289Names() throws Exception
    {
        final NamingBindings b = naming.bindings();
        assertSame(b.value("sip/chat/SipFactory"),
            asApplication(() -> new InitialContext().lookup("java:comp/env/sip/chat/SipFactory")));
        assertSame(b.value("sip/chat/TimerService"),
            asApplication(() -> new InitialContext().lookup("java:comp/env/sip/chat/TimerService")));
        assertSame(b.value("sip/chat/SipSessionsUtil"),
            asApplication(() -> new InitialContext().lookup(
                new CompositeName("java:comp/env/sip/chat/SipSessionsUtil"))));
    }

    @Test
    void shouldFindRelativeNamesOnTheEnvSubContext() throws Exception
    {
        final Object factory = naming.bindings().value("sip/chat/SipFactory");
        assertSame(factory, asApplication(() ->
            ((Context)new InitialContext().lookup("java:comp/env")).lookup("sip/chat/SipFactory")));
        assertSame(factory, asApplication(() ->
            ((Context)((Context)new InitialContext().lookup("java:comp")).lookup("env"))
                .lookup("sip/chat/SipFactory")));
        final Context app = asApplication(() ->
            (Context)((Context)new InitialContext().lookup("java:comp/env/sip")).lookup("chat"));
        assertSame(factory, app.lookup("SipFactory"));
        assertEquals("java:comp/env/sip/chat", app.getNameInNamespace());
        assertSame(factory, app.lookup("java:comp/env/sip/chat/SipFactory")); // a java: name from the root
    }

    @Test
    void shouldHoldEnvEntriesWithTheirTypes() throws Exception
    {
        assertEquals(12, asApplication(() -> new InitialContext().lookup("java:comp/env/maxRooms")));
        assertEquals("hello", asApplication(() -> new InitialContext().lookup("java:comp/env/limits/greeting")));
        assertEquals("hello", asApplication(() ->
            ((Context)new InitialContext().lookup("java:comp/env/limits")).lookup("greeting")));
    }

    @Test
    void shouldNameWhatIsNotBound() throws Exception
    {
        final NameNotFoundException missing = assertThrows(NameNotFoundException.class,
            () -> asApplication(() -> new InitialContext().lookup("java:comp/env/sip/chat/Nothing")));
        assertTrue(missing.getMessage().contains("java:comp/env/sip/chat/Nothing"), missing.getMessage());
        assertTrue(missing.getMessage().contains("sip/chat/SipFactory"), missing.getMessage());
        final NameNotFoundException unset = assertThrows(NameNotFoundException.class,
            () -> asApplication(() -> new InitialContext().lookup("java:comp/env/unset")));
        assertTrue(unset.getMessage().contains("java:comp/env/unset"), unset.getMessage());
        final NameNotFoundException other = assertThrows(NameNotFoundException.class,
            () -> asApplication(() -> new InitialContext().lookup("java:global/x")));
        assertTrue(other.getMessage().contains("java:global/x"), other.getMessage());
    }

    @Test
    void shouldRefuseEveryChangeAndListing() throws Exception
    {
        final Context env = asApplication(() -> (Context)new InitialContext().lookup("java:comp/env"));
        final String[] messages = {
            assertThrows(OperationNotSupportedException.class, () -> env.bind("x", 1)).getMessage(),
            assertThrows(OperationNotSupportedException.class, () -> env.rebind("maxRooms", 2)).getMessage(),
            assertThrows(OperationNotSupportedException.class, () -> env.unbind("maxRooms")).getMessage(),
            assertThrows(OperationNotSupportedException.class, () -> env.rename("maxRooms", "y")).getMessage(),
            assertThrows(OperationNotSupportedException.class, () -> env.createSubcontext("z")).getMessage(),
            assertThrows(OperationNotSupportedException.class, () -> env.destroySubcontext("sip")).getMessage(),
        };
        for (final String message : messages)
        {
            assertTrue(message.contains("read-only") && message.contains("'chat'"), message);
        }
        assertThrows(OperationNotSupportedException.class, () -> env.list(""));
        assertThrows(OperationNotSupportedException.class, () -> env.listBindings("sip"));
        assertThrows(OperationNotSupportedException.class,
            () -> asApplication(() -> { new InitialContext().bind("java:comp/env/x", 1); return null; }));
        assertEquals(12, env.lookup("maxRooms"));
    }

    @Test
    void shouldShowNoNamesToAThreadOutsideEveryApplication()
    {
        final NameNotFoundException ex = assertThrows(NameNotFoundException.class,
            () -> new InitialContext().lookup("java:comp/env/sip/chat/SipFactory"));
        assertTrue(ex.getMessage().contains("no application code"), ex.getMessage());
    }

    @Test
    void shouldFindTheApplicationByTheClassesOnTheStackWithoutItsContextClassLoader() throws Exception
    {
        // this test's classes play an application's: a callback on a thread whose context class loader is not set
        try (ApplicationNaming own = TestBindings.start("caller", ReadOnlyContextTest.class.getClassLoader()))
        {
            final Thread thread = Thread.currentThread();
            final ClassLoader previous = thread.getContextClassLoader();
            thread.setContextClassLoader(ClassLoader.getPlatformClassLoader());
            try
            {
                assertSame(own.bindings().value("sip/caller/SipFactory"),
                    new InitialContext().lookup("java:comp/env/sip/caller/SipFactory"));
            }
            finally
            {
                thread.setContextClassLoader(previous);
            }
        }
    }

    @Test
    void shouldWithdrawTheNamesWhenTheApplicationStops() throws Exception
    {
        naming.close();
        assertThrows(NameNotFoundException.class,
            () -> asApplication(() -> new InitialContext().lookup("java:comp/env/maxRooms")));
    }

    @Test
    void shouldSeparateTwoApplications() throws Exception
    {
        try (URLClassLoader other = TestBindings.loader("other-loader");
            ApplicationNaming otherNaming = TestBindings.start("other", other))
        {
            assertThrows(NameNotFoundException.class,
                () -> asApplication(() -> new InitialContext().lookup("java:comp/env/sip/other/SipFactory")));
            final Thread thread = Thread.currentThread();
            final ClassLoader previous = thread.getContextClassLoader();
            thread.setContextClassLoader(other);
            try
            {
                assertSame(otherNaming.bindings().value("sip/other/SipFactory"),
                    new InitialContext().lookup("java:comp/env/sip/other/SipFactory"));
            }
            finally
            {
                thread.setContextClassLoader(previous);
            }
        }
    }

    @Test
    void shouldFallBackWhenTheNamedFactoryIsAbsent() throws Exception
    {
        final Hashtable<String, Object> env = new Hashtable<>();
        env.put(Context.INITIAL_CONTEXT_FACTORY, "org.jnp.interfaces.NamingContextFactory");
        assertEquals(12, asApplication(() -> new InitialContext(env).lookup("java:comp/env/maxRooms")));
        env.put(Context.INITIAL_CONTEXT_FACTORY, ContainerInitialContextFactory.class.getName());
        assertEquals(12, asApplication(() -> new InitialContext(env).lookup("java:comp/env/maxRooms")));
    }

    @Test
    void shouldKeepTheEnvironmentOfItsContext() throws NamingException
    {
        final Context context = new ReadOnlyContext(naming.bindings(), "comp/env", null);
        context.addToEnvironment("k", "v");
        assertEquals("v", context.getEnvironment().get("k"));
        assertInstanceOf(Context.class, context.lookup(""));
        assertEquals("sip/chat", context.composeName("chat", "sip"));
    }
}
