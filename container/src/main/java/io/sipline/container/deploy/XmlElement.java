package io.sipline.container.deploy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * One element of a parsed deployment descriptor: namespace, local name, attributes (by local name), trimmed text,
 * children, and the line of its start tag, so that every error can name the line.
 * <p>
 * Threading: built by one thread in {@link SecureXml}, then only read; not shared across threads by design.
 */
final class XmlElement
{
    private final String namespace;
    private final String localName;
    private final Map<String, String> attributes;
    private final int line;
    private final List<XmlElement> children = new ArrayList<>();
    private final StringBuilder text = new StringBuilder();

    XmlElement(final String namespace, final String localName, final Map<String, String> attributes, final int line)
    {
        this.namespace = null == namespace ? "" : namespace;
        this.localName = localName;
        this.attributes = attributes;
        this.line = line;
    }

    String namespace()
    {
        return namespace;
    }

    String localName()
    {
        return localName;
    }

    int line()
    {
        return line;
    }

    /**
     * @param name an attribute's local name.
     * @return its value, or {@code null}.
     */
    String attribute(final String name)
    {
        return attributes.get(name);
    }

    List<XmlElement> children()
    {
        return Collections.unmodifiableList(children);
    }

    /**
     * @return the element's own character content, trimmed (descriptor values never carry meaningful edge spaces).
     */
    String text()
    {
        return text.toString().strip();
    }

    void addChild(final XmlElement child)
    {
        children.add(child);
    }

    void appendText(final String chars)
    {
        text.append(chars);
    }

    @Override
    public String toString()
    {
        return '<' + localName + "> at line " + line;
    }
}
