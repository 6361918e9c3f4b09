package io.sipline.container.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.ar.SipApplicationRouter;
import javax.servlet.sip.ar.SipApplicationRouterInfo;
import javax.servlet.sip.ar.SipApplicationRoutingDirective;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;
import javax.servlet.sip.ar.SipTargetedRequestInfo;
import javax.servlet.sip.ar.spi.SipApplicationRouterProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApplicationRoutersTest
{
    @Test
    void shouldFallBackToTheDefaultRouter()
    {
        final DefaultApplicationRouter fallback = new DefaultApplicationRouter(DarConfiguration.empty());
        final ApplicationRouters.Selection selection =
            ApplicationRouters.load(getClass().getClassLoader(), null, () -> fallback);

        assertSame(fallback, selection.router());
        assertTrue(selection.origin().startsWith("default "), selection.origin());
    }

    @Test
    void shouldUseAProviderRegisteredInMetaInfServices(@TempDir final Path dir) throws Exception
    {
        final Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(SipApplicationRouterProvider.class.getName()),
            "# custom router\n" + TestRouterProvider.class.getName() + "\n");

        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader()))
        {
            final ApplicationRouters.Selection selection =
                ApplicationRouters.load(loader, null, () -> new DefaultApplicationRouter());
            assertInstanceOf(TestRouter.class, selection.router());
            assertEquals("service " + TestRouterProvider.class.getName(), selection.origin());
        }
    }

    @Test
    void shouldPreferTheProviderNamedByTheSystemProperty()
    {
        final ApplicationRouters.Selection selection = ApplicationRouters.load(
            getClass().getClassLoader(), TestRouterProvider.class.getName(), () -> new DefaultApplicationRouter());

        assertInstanceOf(TestRouter.class, selection.router());
        assertEquals("property " + TestRouterProvider.class.getName(), selection.origin());
    }

    @Test
    void shouldRefuseABrokenProvider(@TempDir final Path dir) throws Exception
    {
        final IllegalStateException named = assertThrows(IllegalStateException.class, () -> ApplicationRouters.load(
            getClass().getClassLoader(), "com.example.Missing", () -> new DefaultApplicationRouter()));
        assertTrue(named.getMessage().contains("com.example.Missing"), named.getMessage());

        final Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(SipApplicationRouterProvider.class.getName()), "com.example.Missing\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader()))
        {
            final IllegalStateException registered = assertThrows(IllegalStateException.class,
                () -> ApplicationRouters.load(loader, null, () -> new DefaultApplicationRouter()));
            assertTrue(registered.getMessage().contains("com.example.Missing"), registered.getMessage());
        }
    }

    /** A provider as a router vendor would ship it. */
    public static final class TestRouterProvider extends SipApplicationRouterProvider
    {
        /** Service loaders need a public no-argument constructor. */
        public TestRouterProvider()
        {
        }

        @Override
        public SipApplicationRouter getSipApplicationRouter()
        {
            return new TestRouter();
        }
    }

    /** A router that routes nothing. */
    static final class TestRouter implements SipApplicationRouter
    {
        @Override
        public void applicationDeployed(final List<String> names)
        {
        }

        @Override
        public void applicationUndeployed(final List<String> names)
        {
        }

        @Override
        public void destroy()
        {
        }

        @Override
        public SipApplicationRouterInfo getNextApplication(final SipServletRequest request,
            final SipApplicationRoutingRegion region, final SipApplicationRoutingDirective directive,
            final SipTargetedRequestInfo targeted, final Serializable stateInfo)
        {
            return null;
        }

        @Override
        public void init()
        {
        }

        @Override
        public void init(final Properties properties)
        {
        }
    }
}
