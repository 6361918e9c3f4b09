package io.sipline.container.naming;

import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;

import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipSessionsUtil;
import javax.servlet.sip.TimerService;

/**
 * Stand-ins for the container objects an application's names hold (proxies that answer nothing), and class loaders
 * that play an application's.
 */
final class TestBindings
{
    private TestBindings()
    {
    }

    static <T> T stub(final Class<T> type)
    {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
            (proxy, method, args) -> "toString".equals(method.getName()) ? "stub " + type.getSimpleName() : null));
    }

    static ApplicationNaming start(final String application, final ClassLoader loader, final EnvEntry... entries)
    {
        return ApplicationNaming.start(application, loader, stub(SipFactory.class), stub(TimerService.class),
            stub(SipSessionsUtil.class), List.of(entries));
    }

    /** A class loader of its own, as an application's would be, delegating everything to the test's. */
    static URLClassLoader loader(final String name)
    {
        return new URLClassLoader(name, new URL[0], TestBindings.class.getClassLoader());
    }
}
