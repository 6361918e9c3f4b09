package io.sipline.container.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import javax.annotation.PostConstruct;
import javax.annotation.PreDestroy;

import org.junit.jupiter.api.Test;

/** {@code @PostConstruct} and {@code @PreDestroy} (JSR 250 §2.5, §2.6): order, overriding, refusals. */
class LifecycleCallbacksTest
{
    static class Base
    {
        final List<String> calls = new ArrayList<>();

        @PostConstruct
        private void baseReady()
        {
            calls.add("base ready");
        }

        @PostConstruct
        void replaced()
        {
            calls.add("base replaced");
        }

        @PreDestroy
        protected void baseGone()
        {
            calls.add("base gone");
        }
    }

    static final class Sub extends Base
    {
        @PostConstruct
        public void ready()
        {
            calls.add("sub ready");
        }

        @Override
        void replaced()
        {
            calls.add("sub replaced, not a callback");
        }

        @PreDestroy
        void gone()
        {
            calls.add("sub gone");
        }
    }

    static final class TakesAnArgument
    {
        @PostConstruct
        void init(final String s)
        {
        }
    }

    static final class Throws
    {
        @PostConstruct
        void init()
        {
            throw new IllegalArgumentException("no database");
        }
    }

    @Test
    void shouldCallSuperclassCallbacksFirstAndOverriddenOnesNot()
    {
        final Sub sub = new Sub();
        LifecycleCallbacks.postConstruct(sub);
        assertEquals(List.of("base ready", "sub ready"), sub.calls);
        sub.calls.clear();
        LifecycleCallbacks.preDestroy(sub);
        assertEquals(List.of("base gone", "sub gone"), sub.calls);
    }

    @Test
    void shouldDoNothingWithoutCallbacks()
    {
        LifecycleCallbacks.postConstruct(new Object());
        LifecycleCallbacks.preDestroy("no callbacks");
    }

    @Test
    void shouldRefuseAMethodThatIsNoCallback()
    {
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> LifecycleCallbacks.postConstruct(new TakesAnArgument()));
        assertEquals("@PostConstruct " + TakesAnArgument.class.getName() + ".init(): a callback takes no argument, "
            + "returns void and is not static (JSR 250)", e.getMessage());
    }

    @Test
    void shouldReportACallbackThatThrowsWithItsCause()
    {
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> LifecycleCallbacks.postConstruct(new Throws()));
        assertEquals("@PostConstruct " + Throws.class.getName() + ".init() threw "
            + "java.lang.IllegalArgumentException: no database", e.getMessage());
        assertSame(IllegalArgumentException.class, e.getCause().getClass());
    }
}
