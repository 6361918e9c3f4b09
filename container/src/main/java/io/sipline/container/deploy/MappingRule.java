package io.sipline.container.deploy;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

import javax.servlet.sip.SipServletRequest;

/**
 * A compiled {@code <pattern>} of a {@code servlet-mapping} (JSR 289 §16.3 "Servlet Mapping Rules"; the sip.xml
 * condition elements): a small predicate tree evaluated against an initial request to select the servlet.
 * <ul>
 *   <li>{@link Equal}: the variable's value equals the literal ({@code ignore-case} optional).</li>
 *   <li>{@link Exists}: the variable has a value.</li>
 *   <li>{@link Contains}: the literal is a substring of the variable's value ({@code ignore-case} optional).</li>
 *   <li>{@link SubdomainOf}: the variable's value is a domain name equal to the literal or below it, label by label,
 *       compared without regard to case; an IP address only matches itself.</li>
 *   <li>{@link And}, {@link Or}, {@link Not}: the usual connectives, evaluated left to right with short-circuit.</li>
 * </ul>
 * A variable without a value makes {@code equal}, {@code contains} and {@code subdomain-of} false.
 * <p>
 * Threading: every node is an immutable record; one tree is evaluated by all shards concurrently without locks.
 */
public sealed interface MappingRule
    permits MappingRule.Equal, MappingRule.Exists, MappingRule.Contains, MappingRule.SubdomainOf, MappingRule.And,
    MappingRule.Or, MappingRule.Not
{
    /**
     * @param request an initial request.
     * @return whether the rule selects the request.
     */
    boolean matches(SipServletRequest request);

    /**
     * @param variable   a variable name, see {@link RequestVariable}.
     * @param value      the literal.
     * @param ignoreCase whether to compare without regard to case.
     * @return an {@code equal} condition.
     * @throws IllegalArgumentException for an unknown variable.
     */
    static MappingRule equal(final String variable, final String value, final boolean ignoreCase)
    {
        return new Equal(RequestVariable.of(variable), value, ignoreCase);
    }

    /**
     * @param variable a variable name, see {@link RequestVariable}.
     * @return an {@code exists} condition.
     * @throws IllegalArgumentException for an unknown variable.
     */
    static MappingRule exists(final String variable)
    {
        return new Exists(RequestVariable.of(variable));
    }

    /**
     * @param variable   a variable name, see {@link RequestVariable}.
     * @param value      the literal to look for.
     * @param ignoreCase whether to compare without regard to case.
     * @return a {@code contains} condition.
     * @throws IllegalArgumentException for an unknown variable.
     */
    static MappingRule contains(final String variable, final String value, final boolean ignoreCase)
    {
        return new Contains(RequestVariable.of(variable), value, ignoreCase);
    }

    /**
     * @param variable a variable name, see {@link RequestVariable}.
     * @param domain   the parent domain (or an IP address).
     * @return a {@code subdomain-of} condition.
     * @throws IllegalArgumentException for an unknown variable.
     */
    static MappingRule subdomainOf(final String variable, final String domain)
    {
        return new SubdomainOf(RequestVariable.of(variable), domain);
    }

    /**
     * @param operands one or more conditions.
     * @return their conjunction.
     */
    static MappingRule and(final MappingRule... operands)
    {
        return new And(List.of(operands));
    }

    /**
     * @param operands one or more conditions.
     * @return their disjunction.
     */
    static MappingRule or(final MappingRule... operands)
    {
        return new Or(List.of(operands));
    }

    /**
     * @param operand a condition.
     * @return its negation.
     */
    static MappingRule not(final MappingRule operand)
    {
        return new Not(operand);
    }

    /**
     * {@code <equal>}.
     *
     * @param variable   the variable.
     * @param value      the literal.
     * @param ignoreCase whether case is ignored.
     */
    record Equal(RequestVariable variable, String value, boolean ignoreCase) implements MappingRule
    {
        /** Checks the parts. */
        public Equal
        {
            Objects.requireNonNull(variable, "variable");
            Objects.requireNonNull(value, "value");
        }

        @Override
        public boolean matches(final SipServletRequest request)
        {
            final String actual = variable.valueOf(request);
            return null != actual && (ignoreCase ? actual.equalsIgnoreCase(value) : actual.equals(value));
        }
    }

    /**
     * {@code <exists>}.
     *
     * @param variable the variable.
     */
    record Exists(RequestVariable variable) implements MappingRule
    {
        /** Checks the parts. */
        public Exists
        {
            Objects.requireNonNull(variable, "variable");
        }

        @Override
        public boolean matches(final SipServletRequest request)
        {
            return null != variable.valueOf(request);
        }
    }

    /**
     * {@code <contains>}.
     *
     * @param variable   the variable.
     * @param value      the substring.
     * @param ignoreCase whether case is ignored.
     */
    record Contains(RequestVariable variable, String value, boolean ignoreCase) implements MappingRule
    {
        /** Checks the parts. */
        public Contains
        {
            Objects.requireNonNull(variable, "variable");
            Objects.requireNonNull(value, "value");
        }

        @Override
        public boolean matches(final SipServletRequest request)
        {
            final String actual = variable.valueOf(request);
            if (null == actual)
            {
                return false;
            }
            return ignoreCase
                ? actual.toLowerCase(Locale.ROOT).contains(value.toLowerCase(Locale.ROOT))
                : actual.contains(value);
        }
    }

    /**
     * {@code <subdomain-of>}: true when the value is the domain itself or a name below it ({@code sales.example.com}
     * and {@code example.com} are both subdomains of {@code example.com}; {@code badexample.com} is not). Domain
     * names are compared without regard to case and a trailing root dot is ignored. An IP address literal (IPv4, or
     * IPv6 with or without brackets) is a subdomain only of itself.
     *
     * @param variable the variable.
     * @param domain   the parent domain.
     */
    record SubdomainOf(RequestVariable variable, String domain) implements MappingRule
    {
        /** Checks the parts. */
        public SubdomainOf
        {
            Objects.requireNonNull(variable, "variable");
            Objects.requireNonNull(domain, "domain");
        }

        @Override
        public boolean matches(final SipServletRequest request)
        {
            final String actual = variable.valueOf(request);
            if (null == actual || actual.isEmpty())
            {
                return false;
            }
            final String host = normalise(actual);
            final String parent = normalise(domain);
            if (parent.isEmpty())
            {
                return false;
            }
            if (isIpLiteral(host) || isIpLiteral(parent))
            {
                return host.equals(parent);
            }
            return host.equals(parent) || host.endsWith('.' + parent);
        }

        private static String normalise(final String name)
        {
            String value = name.strip().toLowerCase(Locale.ROOT);
            if (value.startsWith("[") && value.endsWith("]"))
            {
                value = value.substring(1, value.length() - 1);
            }
            if (value.endsWith("."))
            {
                value = value.substring(0, value.length() - 1);
            }
            return value;
        }

        private static boolean isIpLiteral(final String host)
        {
            if (host.indexOf(':') >= 0)
            {
                return true;
            }
            // RFC 3261 §25.1 IPv4address: four dotted groups of digits; a domain's top label never starts with a digit
            int dots = 0;
            for (int i = 0; i < host.length(); i++)
            {
                final char c = host.charAt(i);
                if ('.' == c)
                {
                    dots++;
                }
                else if (c < '0' || c > '9')
                {
                    return false;
                }
            }
            return 3 == dots;
        }
    }

    /**
     * {@code <and>}.
     *
     * @param operands the conditions, at least one.
     */
    record And(List<MappingRule> operands) implements MappingRule
    {
        /** Checks and freezes the operands. */
        public And
        {
            operands = List.copyOf(operands);
            if (operands.isEmpty())
            {
                throw new IllegalArgumentException("<and> needs at least one condition");
            }
        }

        @Override
        public boolean matches(final SipServletRequest request)
        {
            for (final MappingRule operand : operands)
            {
                if (!operand.matches(request))
                {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * {@code <or>}.
     *
     * @param operands the conditions, at least one.
     */
    record Or(List<MappingRule> operands) implements MappingRule
    {
        /** Checks and freezes the operands. */
        public Or
        {
            operands = List.copyOf(operands);
            if (operands.isEmpty())
            {
                throw new IllegalArgumentException("<or> needs at least one condition");
            }
        }

        @Override
        public boolean matches(final SipServletRequest request)
        {
            for (final MappingRule operand : operands)
            {
                if (operand.matches(request))
                {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * {@code <not>}.
     *
     * @param operand the negated condition.
     */
    record Not(MappingRule operand) implements MappingRule
    {
        /** Checks the operand. */
        public Not
        {
            Objects.requireNonNull(operand, "operand");
        }

        @Override
        public boolean matches(final SipServletRequest request)
        {
            return !operand.matches(request);
        }
    }
}
