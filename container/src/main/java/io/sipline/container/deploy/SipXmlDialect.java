package io.sipline.container.deploy;

/**
 * The three forms of {@code WEB-INF/sip.xml} that {@link SipXmlReader} accepts.
 * <p>
 * Threading: an enum, immutable.
 */
public enum SipXmlDialect
{
    /**
     * SIP Servlet 1.0 (JSR 116): no namespace, DOCTYPE {@code -//Java Community Process//DTD SIP Application 1.0//EN}.
     * Servlet selection by mapping rules only.
     */
    V1_0,

    /**
     * SIP Servlet 1.1 (JSR 289): root in namespace {@code http://www.jcp.org/xml/ns/sipservlet}, borrowed elements in
     * {@code http://java.sun.com/xml/ns/javaee}.
     */
    V1_1,

    /**
     * No namespace and no 1.0 DOCTYPE, as older tools write: read with the 1.1 rules (main-servlet allowed), element
     * names matched by local name.
     */
    UNNAMESPACED
}
