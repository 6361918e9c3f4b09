package io.sipline.container.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import javax.annotation.Resource;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipSessionsUtil;
import javax.servlet.sip.TimerService;

import org.junit.jupiter.api.Test;

/** {@code @Resource} injection as JSR 289 §18 applications written for other containers use it. */
class ResourceInjectorTest
{
    private final NamingBindings bindings = NamingBindings.forApplication("chat", TestBindings.stub(SipFactory.class),
        TestBindings.stub(TimerService.class), TestBindings.stub(SipSessionsUtil.class), List.of(
            EnvEntry.of("maxRooms", "java.lang.Integer", "12"),
            EnvEntry.of("greeting", null, "hello"),
            EnvEntry.of(Defaults.class.getName() + "/motd", null, "welcome"),
            EnvEntry.of("unset", "java.lang.String", null)));
    private final ResourceInjector injector = new ResourceInjector(bindings);
    private static final String BOUND = "[greeting, " + Defaults.class.getName() + "/motd, maxRooms, "
        + "sip/chat/SipFactory, sip/chat/SipSessionsUtil, sip/chat/TimerService]";

    /** The usual servlet: the three container objects by type, private fields, one setter. */
    static class Base
    {
        @Resource
        private SipFactory sipFactory;
        private TimerService timers;

        @Resource
        void setTimers(final TimerService timers)
        {
            this.timers = timers;
        }
    }

    static final class Servlet extends Base
    {
        @Resource
        protected SipSessionsUtil sessions;
        @Resource(name = "sip/chat/SipFactory")
        SipFactory byName;
        @Resource(mappedName = "java:comp/env/sip/chat/TimerService")
        TimerService byMappedName;
        @Resource(lookup = "java:/sip/chat/SipSessionsUtil")
        SipSessionsUtil byLookup;
        @Resource(name = "myFactoryReference")
        SipFactory reference;
        @Resource(name = "maxRooms")
        private int maxRooms;
        @Resource(name = "java:comp/env/maxRooms")
        Integer boxed;
        @Resource(name = "greeting")
        String greeting;
        @Resource(name = "unset")
        String unset = "kept";
        String notAnnotated;
    }

    static final class Defaults
    {
        @Resource
        String motd;
    }

    static final class StaticHolder
    {
        @Resource
        static SipFactory factory;
    }

    static final class Unknown
    {
        @Resource(name = "maxCalls")
        int maxCalls;
    }

    static final class OtherApplication
    {
        @Resource(name = "sip/other/SipFactory")
        SipFactory factory;
    }

    static final class WrongType
    {
        @Resource(name = "greeting")
        Integer greeting;
    }

    static final class FinalField
    {
        @Resource
        final SipFactory factory = null;
    }

    static final class TwoArguments
    {
        @Resource
        void setBoth(final SipFactory f, final TimerService t)
        {
            // never called
        }
    }

    static final class ThrowingSetter
    {
        @Resource
        void setFactory(final SipFactory f)
        {
            throw new IllegalStateException("no thanks");
        }
    }

    @Test
    void shouldInjectByTypeByNameAndIntoSuperclasses() throws Exception
    {
        final Servlet servlet = new Servlet();
        injector.inject(servlet);

        assertSame(bindings.value("sip/chat/SipFactory"), ((Base)servlet).sipFactory);
        assertSame(bindings.value("sip/chat/TimerService"), ((Base)servlet).timers);
        assertSame(bindings.value("sip/chat/SipSessionsUtil"), servlet.sessions);
        assertSame(bindings.value("sip/chat/SipFactory"), servlet.byName);
        assertSame(bindings.value("sip/chat/TimerService"), servlet.byMappedName);
        assertSame(bindings.value("sip/chat/SipSessionsUtil"), servlet.byLookup);
        assertSame(bindings.value("sip/chat/SipFactory"), servlet.reference);
        assertEquals(12, servlet.maxRooms);
        assertEquals(12, servlet.boxed);
        assertEquals("hello", servlet.greeting);
        assertEquals("kept", servlet.unset);
        assertNull(servlet.notAnnotated);
    }

    @Test
    void shouldUseTheJavaEeDefaultNameAndStaticFields() throws Exception
    {
        final Defaults defaults = new Defaults();
        injector.inject(defaults);
        assertEquals("welcome", defaults.motd);

        injector.inject(new StaticHolder());
        assertSame(bindings.value("sip/chat/SipFactory"), StaticHolder.factory);
    }

    @Test
    void shouldRefuseWhatCannotBeInjectedNamingClassMemberAndReason()
    {
        assertEquals("@Resource " + Unknown.class.getName() + ".maxCalls: java:comp/env/maxCalls is not bound "
            + "(application 'chat' binds " + BOUND + ')',
            assertThrows(InjectionException.class, () -> injector.inject(new Unknown())).getMessage());
        assertEquals("@Resource " + OtherApplication.class.getName() + ".factory: java:comp/env/sip/other/SipFactory "
            + "is not bound (application 'chat' binds " + BOUND + ')',
            assertThrows(InjectionException.class, () -> injector.inject(new OtherApplication())).getMessage());
        assertEquals("@Resource " + WrongType.class.getName() + ".greeting: java:comp/env/greeting is a "
            + "java.lang.String, which does not fit java.lang.Integer",
            assertThrows(InjectionException.class, () -> injector.inject(new WrongType())).getMessage());
        assertEquals("@Resource " + FinalField.class.getName() + ".factory: the field is final",
            assertThrows(InjectionException.class, () -> injector.inject(new FinalField())).getMessage());
        assertEquals("@Resource " + TwoArguments.class.getName() + ".setBoth(): a @Resource method must be a setter "
            + "of one argument (JavaBeans setXxx)",
            assertThrows(InjectionException.class, () -> injector.inject(new TwoArguments())).getMessage());
        assertEquals("@Resource " + ThrowingSetter.class.getName() + ".setFactory(): the setter threw "
            + "java.lang.IllegalStateException: no thanks",
            assertThrows(InjectionException.class, () -> injector.inject(new ThrowingSetter())).getMessage());
    }

    @Test
    void shouldReadNamesWrittenForOtherServers()
    {
        assertEquals("sip/a/SipFactory", ResourceInjector.relative("java:comp/env/sip/a/SipFactory"));
        assertEquals("sip/a/SipFactory", ResourceInjector.relative("java:/sip/a/SipFactory"));
        assertEquals("sip/a/SipFactory", ResourceInjector.relative("java:sip/a/SipFactory"));
        assertEquals("sip/a/SipFactory", ResourceInjector.relative("java:app/sip/a/SipFactory"));
        assertEquals("maxRooms", ResourceInjector.relative(" maxRooms "));
    }
}
