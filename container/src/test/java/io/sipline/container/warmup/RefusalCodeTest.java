package io.sipline.container.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * Which of the refusal's methods a round compiled by C1 without a profile or by C2, from the code lists (HotSpot's
 * {@code Compiler.codelist}: id, tier, state, method) read at its start and end.
 */
class RefusalCodeTest
{
    private static final String SEND =
        "io.sipline.sip.transaction.StatelessShedding.send(Lio/sipline/sip/message/SipMessage;JI)V";
    private static final String SELECT = "io.sipline.sip.transport.ResponseAddress.select(Ljava/lang/Object;)V";
    private static final String OTHER = "io.sipline.container.api.MessageHeaders.of(I)V";

    private static String line(final int id, final int tier, final int state, final String method)
    {
        return id + " " + tier + " " + state + " " + method + " [0x00007f0000000000, 0x00007f0000000100 - "
            + "0x00007f0000000200]\n";
    }

    @Test
    void shouldCallARoundThatC2CompiledARefusalMethodInUnsettled()
    {
        final String before = line(10, 3, 0, SEND);
        assertEquals(Set.of(SEND), RefusalCode.unsettled(before, before + line(20, 4, 0, SEND)));
        // replaced since: compiled in the round all the same
        assertEquals(Set.of(SEND), RefusalCode.unsettled(before, before + line(20, 4, 2, SEND)));
    }

    @Test
    void shouldCallARoundThatCompiledWithoutAProfileUnsettled()
    {
        assertEquals(Set.of(SELECT), RefusalCode.unsettled("", line(20, 2, 0, SELECT)));
    }

    @Test
    void shouldCallARoundThatCompiledNothingOrOnlyProfiledCodeSettled()
    {
        // C2's code and C1's of every kind from earlier rounds, then a warm method crossing C1's threshold
        final String list = line(10, 4, 0, SEND) + line(11, 2, 0, SELECT) + line(12, 1, 0, SEND);
        assertEquals(Set.of(), RefusalCode.unsettled(list, list));
        assertEquals(Set.of(), RefusalCode.unsettled(list, list + line(13, 3, 0, SELECT)));
    }

    @Test
    void shouldIgnoreMethodsOutsideTheRefusal()
    {
        assertEquals(Set.of(), RefusalCode.unsettled("", line(30, 4, 0, OTHER) + line(31, 2, 0, OTHER)
            + "not a code list line\n"));
    }

    @Test
    void shouldCallEverythingUnsettledWithoutACodeList()
    {
        assertEquals(Set.copyOf(RefusalCode.METHODS), RefusalCode.unsettled(null, ""));
        assertEquals(Set.copyOf(RefusalCode.METHODS), RefusalCode.unsettled("", null));
    }

    @Test
    void shouldNameClassesAndMethodsThatExist() throws Exception
    {
        for (final String m : RefusalCode.METHODS)
        {
            final int paren = m.indexOf('(');
            final String name = paren < 0 ? m.substring(0, m.length() - 1) : m.substring(0, paren);
            final String type = paren < 0 ? name : name.substring(0, name.lastIndexOf('.'));
            final Class<?> c = Class.forName(type);
            if (paren >= 0)
            {
                final String method = name.substring(name.lastIndexOf('.') + 1);
                assertTrue(Arrays.stream(c.getDeclaredMethods()).map(Method::getName).anyMatch(method::equals), m);
            }
        }
    }

    @Test
    void shouldShortenNames()
    {
        assertEquals("StatelessShedding.send", RefusalCode.shortName(SEND));
        assertEquals("ShardAdmission", RefusalCode.shortName("io.sipline.container.dispatch.ShardAdmission."));
    }

    @Test
    void shouldReadThisJvmsCodeList()
    {
        final String list = RefusalCode.read();
        assertNotNull(list, "Compiler.codelist through the DiagnosticCommand MBean");
        // this JVM compiled something by now, and each of its lines reads as id, tier, state and method
        final long lines = list.lines().filter(l -> l.matches("\\s*\\d+ .*")).peek(l ->
        {
            final RefusalCode.Line c = RefusalCode.Line.parse(l);
            assertNotNull(c, l);
            assertTrue(c.tier() >= 0 && c.tier() <= RefusalCode.FULL_OPTIMIZATION && c.method().contains("("), l);
        }).count();
        assertTrue(lines > 10, list);
    }
}
