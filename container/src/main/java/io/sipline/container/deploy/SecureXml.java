package io.sipline.container.deploy;

import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

import javax.xml.XMLConstants;
import javax.xml.stream.Location;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Parses a deployment descriptor with the JDK's own StAX implementation into a small {@link XmlElement} tree that
 * keeps line numbers.
 * <p>
 * Secured against hostile or careless archives: DTDs are not processed (so the SIP Servlet 1.0 DOCTYPE never triggers
 * a network fetch and no entity can expand), external entities and external DTD/schema access are off, and a resolver
 * that refuses everything is installed as a last line of defence. A reference to an undeclared entity is a
 * well-formedness error reported with its line.
 * <p>
 * Threading: stateless; each call builds its own reader. The factory is created per call because
 * {@link XMLInputFactory} is not documented as thread-safe to configure.
 */
final class SecureXml
{
    /** The parsed root plus the DOCTYPE text (or {@code null} when the document has none). */
    record Document(XmlElement root, String doctype)
    {
    }

    private SecureXml()
    {
    }

    /**
     * @param in     the document bytes; the encoding is taken from the XML declaration.
     * @param source the file name used in error messages.
     * @return the parsed document.
     * @throws DeploymentException on malformed XML, with the line where the parser stopped.
     */
    static Document parse(final InputStream in, final String source) throws DeploymentException
    {
        final XMLInputFactory factory = newFactory();
        XMLStreamReader reader = null;
        try
        {
            reader = factory.createXMLStreamReader(in);
            return read(reader, source);
        }
        catch (final XMLStreamException ex)
        {
            final Location location = ex.getLocation();
            final int line = null == location ? DeploymentException.NO_LINE : location.getLineNumber();
            throw new DeploymentException(source, line, "malformed XML: " + stripLocation(ex.getMessage()), ex);
        }
        finally
        {
            closeQuietly(reader);
        }
    }

    private static XMLInputFactory newFactory()
    {
        // The JDK's built-in implementation, whatever else is on the class path: its security properties are known.
        final XMLInputFactory factory = XMLInputFactory.newDefaultFactory();
        factory.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, Boolean.TRUE);
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, Boolean.FALSE);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, Boolean.FALSE);
        factory.setProperty(XMLInputFactory.IS_VALIDATING, Boolean.FALSE);
        factory.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        factory.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        factory.setXMLResolver((publicId, systemId, baseUri, ns) ->
        {
            throw new XMLStreamException("external resource refused: " + systemId);
        });
        return factory;
    }

    private static Document read(final XMLStreamReader reader, final String source)
        throws XMLStreamException, DeploymentException
    {
        final Deque<XmlElement> open = new ArrayDeque<>();
        XmlElement root = null;
        String doctype = null;
        while (reader.hasNext())
        {
            final int event = reader.next();
            switch (event)
            {
                case XMLStreamConstants.DTD -> doctype = reader.getText();
                case XMLStreamConstants.START_ELEMENT ->
                {
                    final XmlElement element = new XmlElement(
                        reader.getNamespaceURI(), reader.getLocalName(), attributes(reader),
                        reader.getLocation().getLineNumber());
                    if (open.isEmpty())
                    {
                        root = element;
                    }
                    else
                    {
                        open.peek().addChild(element);
                    }
                    open.push(element);
                }
                case XMLStreamConstants.END_ELEMENT -> open.pop();
                case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE ->
                {
                    if (!open.isEmpty())
                    {
                        open.peek().appendText(reader.getText());
                    }
                }
                default ->
                {
                    // comments, processing instructions, document start/end: nothing to keep
                }
            }
        }
        if (null == root)
        {
            throw new DeploymentException(source, "empty document");
        }
        return new Document(root, doctype);
    }

    private static Map<String, String> attributes(final XMLStreamReader reader)
    {
        final int count = reader.getAttributeCount();
        if (0 == count)
        {
            return Map.of();
        }
        final Map<String, String> attributes = new HashMap<>(count * 2);
        for (int i = 0; i < count; i++)
        {
            attributes.put(reader.getAttributeLocalName(i), reader.getAttributeValue(i));
        }
        return attributes;
    }

    private static String stripLocation(final String message)
    {
        // The JDK prefixes "ParseError at [row,col]:[5,9]\nMessage: "; the line is already in our prefix.
        if (null == message)
        {
            return "unknown parse error";
        }
        final int at = message.indexOf("Message: ");
        return at >= 0 ? message.substring(at + "Message: ".length()).strip() : message.strip();
    }

    private static void closeQuietly(final XMLStreamReader reader)
    {
        if (null != reader)
        {
            try
            {
                reader.close();
            }
            catch (final XMLStreamException ignored)
            {
                // closing a reader over an in-memory or file stream that we close ourselves: nothing to report
            }
        }
    }
}
