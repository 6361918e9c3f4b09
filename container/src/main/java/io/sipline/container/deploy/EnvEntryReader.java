package io.sipline.container.deploy;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sipline.container.naming.EnvEntry;

/**
 * Reads {@code <env-entry>} elements (Servlet 3.1 §15.5.3, borrowed by the sip.xml schema of JSR 289 §19) into
 * {@link EnvEntry} values: {@code env-entry-name} (required), {@code env-entry-type} (default
 * {@code java.lang.String}) and {@code env-entry-value} (absent: declared, not bound). From sip.xml, element by element
 * ({@link #read}); from {@code WEB-INF/web.xml}, which a converged application carries, only its env entries
 * ({@link #readWebXml}): the rest of web.xml belongs to the web half.
 * <p>
 * Every failure is a {@link DeploymentException} naming the descriptor and line, e.g.
 * {@code app.war!/WEB-INF/sip.xml:14: env-entry 'maxCalls': 'ten' is not a java.lang.Integer}.
 * <p>
 * Threading: stateless; safe from any thread.
 */
final class EnvEntryReader
{
    /** Where a converged application's web descriptor lives (Servlet 3.1 §10.5). */
    static final String WEB_XML = "WEB-INF/web.xml";

    private EnvEntryReader()
    {
    }

    /**
     * @param element an {@code <env-entry>} element.
     * @param source  the descriptor's name for messages.
     * @return the entry, its value converted.
     * @throws DeploymentException when the name is missing, the type unsupported or the value does not convert.
     */
    static EnvEntry read(final XmlElement element, final String source) throws DeploymentException
    {
        final String name = text(element, "env-entry-name", source);
        if (null == name || name.isEmpty())
        {
            throw new DeploymentException(source, element.line(), "<env-entry> has no <env-entry-name>");
        }
        try
        {
            return EnvEntry.of(name, text(element, "env-entry-type", source), text(element, "env-entry-value", source));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new DeploymentException(source, element.line(), ex.getMessage(), ex);
        }
    }

    /**
     * @param webXml the bytes of {@code WEB-INF/web.xml}.
     * @param source its name for messages, e.g. {@code app.war!/WEB-INF/web.xml}.
     * @return its env entries, in document order.
     * @throws DeploymentException when it is not well-formed XML, its root is not {@code <web-app>}, or an entry is
     *                             invalid or declared twice.
     */
    static List<EnvEntry> readWebXml(final byte[] webXml, final String source) throws DeploymentException
    {
        final XmlElement root = SecureXml.parse(new ByteArrayInputStream(webXml), source).root();
        if (!"web-app".equals(root.localName()))
        {
            throw new DeploymentException(source, root.line(),
                "root element is <" + root.localName() + ">, expected <web-app>");
        }
        final List<EnvEntry> entries = new ArrayList<>();
        final Map<String, Integer> lines = new HashMap<>();
        for (final XmlElement child : root.children())
        {
            if ("env-entry".equals(child.localName()))
            {
                final EnvEntry entry = read(child, source);
                final Integer first = lines.putIfAbsent(entry.name(), child.line());
                if (null != first)
                {
                    throw new DeploymentException(source, child.line(),
                        "env-entry '" + entry.name() + "' is declared twice (first at line " + first + ')');
                }
                entries.add(entry);
            }
        }
        return entries;
    }

    /** The trimmed text of the only child {@code name}, or {@code null}. */
    private static String text(final XmlElement parent, final String name, final String source)
        throws DeploymentException
    {
        XmlElement found = null;
        for (final XmlElement child : parent.children())
        {
            if (name.equals(child.localName()))
            {
                if (null != found)
                {
                    throw new DeploymentException(source, child.line(), "second <" + name + "> in <env-entry> (first"
                        + " at line " + found.line() + ')');
                }
                found = child;
            }
        }
        return null == found ? null : found.text();
    }
}
