package io.sipline.container.warmup;

import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import javax.management.JMException;
import javax.management.ObjectName;

import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.transaction.StatelessShedding;
import io.sipline.sip.transport.ResponseAddress;

/**
 * What the JIT did to the code that refuses a call under overload, read from HotSpot's {@code Compiler.codelist}
 * diagnostic command (one line per compiled method: compile id, tier, state, method). The warm-up reads it before and
 * after each round of refusals, the JIT quiet, and runs another round while the round compiled a method of the refusal
 * path by C1 without a profile (tier 2: what C1 makes while the compile queue is long; it moves on only when it runs
 * again) or by C2 (tier 4: the refusal's code changed under the round, so another runs in the final code). Compiles at
 * tier 3 alone do not count: methods that run a few times per round (the admission's buckets) cross C1's threshold
 * round after round. Code already there does not count either: a method C2 inlined into its caller keeps its own
 * earlier code in the list, never run again.
 *
 * <p>A code list is the text of one call; where the JVM has no such command, {@link #read()} returns null and every
 * method counts as still compiling.
 *
 * <p>Threading: stateless; the warm-up's thread calls it between rounds.
 */
final class RefusalCode
{
    /**
     * The methods a refusal runs, as the code list names them: a class name and a dot (all its methods), or a method
     * name and its opening parenthesis (package-private classes by name; a test finds each).
     */
    static final List<String> METHODS = List.of(
        StatelessShedding.class.getName() + ".",
        "io.sipline.container.dispatch.ShardAdmission.",
        "io.sipline.container.dispatch.AdmissionLimit.",
        "io.sipline.container.dispatch.OverloadControl.",
        "io.sipline.container.dispatch.PressureBuckets.",
        ResponseAddress.class.getName() + ".",
        SipMessageBuilder.class.getName() + ".startResponse(",
        SipMessageBuilder.class.getName() + ".header(",
        SipMessageBuilder.class.getName() + ".end(",
        "io.sipline.sip.stack.ShardEvents.sendStateless(");
    /** C2's tier. */
    static final int FULL_OPTIMIZATION = 4;
    /** C1 without a profile: what it compiles while the queue is long. */
    static final int LIMITED_PROFILE = 2;

    private RefusalCode()
    {
    }

    /** This JVM's code list, or null where it cannot be read. */
    static String read()
    {
        try
        {
            return (String)ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerCodelist",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        }
        catch (final JMException | RuntimeException e)
        {
            return null;
        }
    }

    /**
     * The refusal's methods compiled at tier 2 or by C2 between {@code before} and {@code after}, two code lists read
     * at a round's start and end (sorted names; empty when none). Either null: unknown, {@link #METHODS} themselves.
     */
    static Set<String> unsettled(final String before, final String after)
    {
        if (null == before || null == after)
        {
            return new TreeSet<>(METHODS);
        }
        final Set<Integer> earlier = new HashSet<>();
        before.lines().map(Line::parse).filter(l -> null != l).forEach(l -> earlier.add(l.id));
        final Set<String> compiled = new TreeSet<>();
        after.lines().map(Line::parse).filter(l -> null != l && !earlier.contains(l.id) && l.refusal()
            && (LIMITED_PROFILE == l.tier || FULL_OPTIMIZATION == l.tier)).forEach(l -> compiled.add(l.method));
        return compiled;
    }

    /** {@code a.b.Class.method(signature)return} as {@code Class.method}; a prefix of {@link #METHODS} as its class. */
    static String shortName(final String method)
    {
        final int paren = method.indexOf('(');
        final String name = paren < 0 ? method.substring(0, method.length() - 1) : method.substring(0, paren);
        final int dot = name.lastIndexOf('.', paren < 0 ? name.length() : name.lastIndexOf('.') - 1);
        return name.substring(dot + 1);
    }

    /** One line of the code list: {@code id tier state method(signature)return [addresses]}. */
    record Line(int id, int tier, int state, String method)
    {
        static Line parse(final String text)
        {
            final String[] f = text.trim().split(" ", 5);
            if (f.length < 4)
            {
                return null;
            }
            try
            {
                return new Line(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3]);
            }
            catch (final NumberFormatException e)
            {
                return null;
            }
        }

        boolean refusal()
        {
            for (final String m : METHODS)
            {
                if (method.startsWith(m))
                {
                    return true;
                }
            }
            return false;
        }
    }
}
