package io.sipline.container.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sipline.container.naming.EnvEntry;

/**
 * Reads {@code WEB-INF/sip.xml} into a {@link SipApplicationDescriptor}.
 * <p>
 * Three dialects are accepted ({@link SipXmlDialect}): the SIP Servlet 1.1 schema ({@value #SIP_APP_NAMESPACE}, with
 * the borrowed elements in {@value #JAVAEE_NAMESPACE} or, as many tools write them, in the SIP namespace too), the
 * 1.0 DTD form (no namespace, DOCTYPE {@value #DTD_1_0_PUBLIC_ID}) and the un-namespaced form older tools write.
 * Elements are matched by local name within those namespaces; elements of other namespaces (vendor extensions) and
 * elements this container does not model ({@code resource-ref}, icons...) are skipped; {@code env-entry} values are
 * read by {@link EnvEntryReader}.
 * <p>
 * What is checked here, each failure a {@link DeploymentException} with the file and line: well-formed XML (parsed
 * without DTD processing or any external fetch, see {@link SecureXml}); the root is {@code <sip-app>}; every servlet
 * has a name and a {@code servlet-class}, names are unique; at most one {@code main-servlet}; {@code main-servlet} and
 * {@code servlet-mapping} are not both present (JSR 289 §16.2, the {@code servlet-selection} choice of the 1.1
 * schema); {@code main-servlet} is not used in a file that declares the 1.0 DTD; mapping patterns are well formed and
 * name known variables (§16.3); numbers are numbers. References from mappings and {@code main-servlet} to servlets
 * are checked by {@link SipApplicationDescriptor#validateReferences()} once annotations are merged, because a
 * descriptor may map an annotated servlet.
 * <p>
 * Threading: stateless; safe to call from any thread.
 */
public final class SipXmlReader
{
    /** The SIP Servlet 1.1 deployment descriptor namespace (JSR 289 §19). */
    public static final String SIP_APP_NAMESPACE = "http://www.jcp.org/xml/ns/sipservlet";

    /** The Java EE 5 namespace of the elements the 1.1 schema borrows. */
    public static final String JAVAEE_NAMESPACE = "http://java.sun.com/xml/ns/javaee";

    /** The later Java EE namespace, accepted for borrowed elements as well. */
    public static final String JCP_JAVAEE_NAMESPACE = "http://xmlns.jcp.org/xml/ns/javaee";

    /** The public identifier of the SIP Servlet 1.0 DTD (JSR 116). */
    public static final String DTD_1_0_PUBLIC_ID = "-//Java Community Process//DTD SIP Application 1.0//EN";

    private static final Set<String> KNOWN_NAMESPACES =
        Set.of("", SIP_APP_NAMESPACE, JAVAEE_NAMESPACE, JCP_JAVAEE_NAMESPACE);

    private SipXmlReader()
    {
    }

    /**
     * @param file a sip.xml file.
     * @return the descriptor, references not yet validated.
     * @throws DeploymentException when the file cannot be read or is not a valid descriptor.
     */
    public static SipApplicationDescriptor read(final Path file) throws DeploymentException
    {
        try (InputStream in = Files.newInputStream(file))
        {
            return read(in, file.toString());
        }
        catch (final IOException ex)
        {
            throw new DeploymentException(file.toString(), DeploymentException.NO_LINE, "cannot read: " + ex, ex);
        }
    }

    /**
     * @param in     the descriptor bytes (not closed here).
     * @param source the name used in error messages, e.g. {@code app.war!/WEB-INF/sip.xml}.
     * @return the descriptor, references not yet validated.
     * @throws DeploymentException when the document is not a valid descriptor.
     */
    public static SipApplicationDescriptor read(final InputStream in, final String source) throws DeploymentException
    {
        final SecureXml.Document document = SecureXml.parse(in, source);
        return new Parse(source).descriptor(document);
    }

    /**
     * One parse: the source name and the dialect, for error messages and dialect rules.
     */
    private static final class Parse
    {
        private final String source;
        private SipXmlDialect dialect;
        private final SipApplicationDescriptor.Builder builder = SipApplicationDescriptor.builder();
        private XmlElement mainServlet;
        private XmlElement firstMapping;
        private XmlElement selection;
        private XmlElement proxyConfig;
        private XmlElement sessionConfig;
        private XmlElement loginConfig;

        Parse(final String source)
        {
            this.source = source;
        }

        SipApplicationDescriptor descriptor(final SecureXml.Document document) throws DeploymentException
        {
            final XmlElement root = document.root();
            dialect = dialect(root, document.doctype());
            if (!"sip-app".equals(root.localName()))
            {
                throw error(root, "root element is <" + root.localName() + ">, expected <sip-app>");
            }
            builder.source(source).dialect(dialect);
            builder.metadataComplete(bool(root, "metadata-complete"));
            for (final XmlElement child : root.children())
            {
                if (known(child))
                {
                    element(child);
                }
            }
            checkSelection();
            return builder.build();
        }

        private SipXmlDialect dialect(final XmlElement root, final String doctype) throws DeploymentException
        {
            final String namespace = root.namespace();
            if (SIP_APP_NAMESPACE.equals(namespace))
            {
                return SipXmlDialect.V1_1;
            }
            if (!namespace.isEmpty())
            {
                throw error(root, "root element is in namespace '" + namespace + "', expected '" + SIP_APP_NAMESPACE
                    + "' (SIP Servlet 1.1) or none (1.0)");
            }
            return null != doctype && doctype.contains(DTD_1_0_PUBLIC_ID) ? SipXmlDialect.V1_0
                : SipXmlDialect.UNNAMESPACED;
        }

        private void element(final XmlElement element) throws DeploymentException
        {
            switch (element.localName())
            {
                case "app-name" -> builder.appName(nonEmpty(element));
                case "display-name" -> builder.displayName(element.text());
                case "description" -> builder.description(element.text());
                case "distributable" -> builder.distributable(true);
                case "context-param" -> contextParam(element);
                case "listener" -> listener(element);
                case "servlet" -> servlet(element);
                case "servlet-selection" -> servletSelection(element);
                case "servlet-mapping" -> servletMapping(element);
                case "main-servlet" -> mainServlet(element);
                case "session-config" -> sessionConfig(element);
                case "proxy-config" -> proxyConfig(element);
                case "security-constraint" -> builder.addSecurityConstraint(securityConstraint(element));
                case "login-config" -> loginConfig(element);
                case "security-role" -> builder.addSecurityRole(requiredText(element, "role-name"));
                case "env-entry" -> envEntry(element);
                default ->
                {
                    // icon, resource-ref, ejb-ref, message-destination...: not modelled
                }
            }
        }

        private void contextParam(final XmlElement element) throws DeploymentException
        {
            final String name = requiredText(element, "param-name");
            final String value = optionalText(element, "param-value", "");
            if (null != builder.putContextParam(name, value))
            {
                throw error(element, "context-param '" + name + "' is declared twice");
            }
        }

        private void envEntry(final XmlElement element) throws DeploymentException
        {
            final EnvEntry entry = EnvEntryReader.read(element, source);
            if (null != builder.putEnvEntry(entry))
            {
                throw error(element, "env-entry '" + entry.name() + "' is declared twice");
            }
        }

        private void listener(final XmlElement element) throws DeploymentException
        {
            final String className = requiredText(element, "listener-class");
            builder.addListener(new ListenerDefinition(
                className, optionalText(element, "description", null), DescriptorOrigin.SIP_XML, source,
                element.line()));
        }

        private void servlet(final XmlElement element) throws DeploymentException
        {
            final String name = requiredText(element, "servlet-name");
            final XmlElement classElement = single(element, "servlet-class");
            if (null == classElement || classElement.text().isEmpty())
            {
                throw error(element, "servlet '" + name + "' has no servlet-class");
            }
            final Map<String, String> initParams = new LinkedHashMap<>();
            for (final XmlElement param : children(element, "init-param"))
            {
                final String paramName = requiredText(param, "param-name");
                if (null != initParams.put(paramName, optionalText(param, "param-value", "")))
                {
                    throw error(param, "init-param '" + paramName + "' of servlet '" + name + "' is declared twice");
                }
            }
            final XmlElement loadOnStartup = single(element, "load-on-startup");
            final Integer order = null == loadOnStartup ? null
                : loadOnStartup.text().isEmpty() ? Integer.valueOf(0) : integer(loadOnStartup);
            final ServletDefinition servlet = new ServletDefinition(
                name, classElement.text(), optionalText(element, "display-name", null),
                optionalText(element, "description", null), initParams, order, DescriptorOrigin.SIP_XML, source,
                element.line());
            final ServletDefinition previous = builder.putServlet(servlet);
            if (null != previous)
            {
                throw error(element, "servlet '" + name + "' is declared twice (first at line " + previous.line()
                    + ')');
            }
        }

        private void servletSelection(final XmlElement element) throws DeploymentException
        {
            if (null != selection)
            {
                throw error(element, "second <servlet-selection> (first at line " + selection.line() + ')');
            }
            selection = element;
            if (SipXmlDialect.V1_0 == dialect)
            {
                throw error(element, "<servlet-selection> is SIP Servlet 1.1; this file declares the 1.0 DTD");
            }
            for (final XmlElement child : element.children())
            {
                if (!known(child))
                {
                    continue;
                }
                switch (child.localName())
                {
                    case "main-servlet" -> mainServlet(child);
                    case "servlet-mapping" -> servletMapping(child);
                    default -> throw error(child, "unexpected <" + child.localName() + "> in <servlet-selection>");
                }
            }
        }

        private void mainServlet(final XmlElement element) throws DeploymentException
        {
            if (SipXmlDialect.V1_0 == dialect)
            {
                throw error(element, "<main-servlet> is SIP Servlet 1.1; this file declares the 1.0 DTD");
            }
            if (null != mainServlet)
            {
                throw error(element, "two main servlets: '" + mainServlet.text() + "' (line " + mainServlet.line()
                    + ") and '" + element.text() + "'");
            }
            mainServlet = element;
            builder.mainServlet(nonEmpty(element), element.line());
        }

        private void servletMapping(final XmlElement element) throws DeploymentException
        {
            if (null == firstMapping)
            {
                firstMapping = element;
            }
            final String servletName = requiredText(element, "servlet-name");
            final XmlElement pattern = single(element, "pattern");
            if (null == pattern)
            {
                throw error(element, "servlet-mapping for '" + servletName + "' has no <pattern>");
            }
            final List<XmlElement> conditions = knownChildren(pattern);
            if (1 != conditions.size())
            {
                throw error(pattern, "<pattern> must hold exactly one condition, found " + conditions.size());
            }
            builder.addMapping(new ServletMapping(servletName, condition(conditions.getFirst()), element.line()));
        }

        private void checkSelection() throws DeploymentException
        {
            if (null != mainServlet && null != firstMapping)
            {
                final XmlElement later = mainServlet.line() > firstMapping.line() ? mainServlet : firstMapping;
                throw error(later, "main-servlet (line " + mainServlet.line() + ") and servlet-mapping (line "
                    + firstMapping.line() + ") are mutually exclusive (JSR 289 §16.2)");
            }
        }

        private MappingRule condition(final XmlElement element) throws DeploymentException
        {
            final String operator = element.localName();
            return switch (operator)
            {
                case "and", "or" ->
                {
                    final List<XmlElement> operands = knownChildren(element);
                    if (operands.isEmpty())
                    {
                        throw error(element, '<' + operator + "> needs at least one condition");
                    }
                    final List<MappingRule> rules = new ArrayList<>(operands.size());
                    for (final XmlElement operand : operands)
                    {
                        rules.add(condition(operand));
                    }
                    yield "and".equals(operator) ? new MappingRule.And(rules) : new MappingRule.Or(rules);
                }
                case "not" ->
                {
                    final List<XmlElement> operands = knownChildren(element);
                    if (1 != operands.size())
                    {
                        throw error(element, "<not> must hold exactly one condition, found " + operands.size());
                    }
                    yield new MappingRule.Not(condition(operands.getFirst()));
                }
                case "equal" -> new MappingRule.Equal(variable(element), value(element, true), ignoreCase(element));
                case "contains" ->
                    new MappingRule.Contains(variable(element), value(element, false), ignoreCase(element));
                case "exists" -> new MappingRule.Exists(variable(element));
                case "subdomain-of" -> new MappingRule.SubdomainOf(variable(element), value(element, false));
                default -> throw error(element, "unknown condition <" + operator
                    + ">; expected and, or, not, equal, exists, contains or subdomain-of");
            };
        }

        private RequestVariable variable(final XmlElement condition) throws DeploymentException
        {
            final XmlElement var = single(condition, "var");
            if (null == var || var.text().isEmpty())
            {
                throw error(condition, '<' + condition.localName() + "> has no <var>");
            }
            try
            {
                return RequestVariable.of(var.text());
            }
            catch (final IllegalArgumentException ex)
            {
                throw error(var, ex.getMessage());
            }
        }

        private String value(final XmlElement condition, final boolean emptyAllowed) throws DeploymentException
        {
            final XmlElement value = single(condition, "value");
            if (null == value || (!emptyAllowed && value.text().isEmpty()))
            {
                throw error(condition, '<' + condition.localName() + "> has no <value>");
            }
            return value.text();
        }

        private boolean ignoreCase(final XmlElement condition) throws DeploymentException
        {
            return bool(condition, "ignore-case");
        }

        private void sessionConfig(final XmlElement element) throws DeploymentException
        {
            sessionConfig = once(sessionConfig, element);
            final XmlElement timeout = single(element, "session-timeout");
            if (null != timeout)
            {
                builder.sessionTimeoutMinutes(integer(timeout));
            }
        }

        private void proxyConfig(final XmlElement element) throws DeploymentException
        {
            proxyConfig = once(proxyConfig, element);
            // 1.1 schema: a choice of proxy-timeout and the deprecated sequential-search-timeout (the 1.0 element).
            final XmlElement proxyTimeout = single(element, "proxy-timeout");
            final XmlElement sequential = single(element, "sequential-search-timeout");
            if (null != proxyTimeout && null != sequential)
            {
                throw error(sequential, "proxy-config holds both proxy-timeout and sequential-search-timeout");
            }
            final XmlElement timeout = null != proxyTimeout ? proxyTimeout : sequential;
            if (null != timeout)
            {
                builder.proxyTimeoutSeconds(integer(timeout));
            }
        }

        private SecurityConstraint securityConstraint(final XmlElement element) throws DeploymentException
        {
            final List<SecurityConstraint.ResourceCollection> collections = new ArrayList<>();
            for (final XmlElement collection : children(element, "resource-collection"))
            {
                String name = optionalText(collection, "resource-name", null);
                if (null == name)
                {
                    name = optionalText(collection, "web-resource-name", null);
                }
                collections.add(new SecurityConstraint.ResourceCollection(
                    name, texts(collection, "servlet-name"), texts(collection, "sip-method")));
            }
            final XmlElement auth = single(element, "auth-constraint");
            final List<String> roles = null == auth ? List.of() : texts(auth, "role-name");
            final XmlElement userData = single(element, "user-data-constraint");
            final String guarantee = null == userData ? null : optionalText(userData, "transport-guarantee", null);
            return new SecurityConstraint(optionalText(element, "display-name", null), collections,
                null != single(element, "proxy-authentication"), roles, guarantee, element.line());
        }

        private void loginConfig(final XmlElement element) throws DeploymentException
        {
            loginConfig = once(loginConfig, element);
            builder.loginConfig(new LoginConfig(optionalText(element, "auth-method", null),
                optionalText(element, "realm-name", null), element.line()));
        }

        private XmlElement once(final XmlElement previous, final XmlElement element) throws DeploymentException
        {
            if (null != previous)
            {
                throw error(element, "second <" + element.localName() + "> (first at line " + previous.line() + ')');
            }
            return element;
        }

        private boolean bool(final XmlElement element, final String attribute) throws DeploymentException
        {
            final String value = element.attribute(attribute);
            if (null == value)
            {
                return false;
            }
            return switch (value.strip())
            {
                case "true", "1" -> true;
                case "false", "0" -> false;
                default -> throw error(element, attribute + "=\"" + value + "\" is not true or false");
            };
        }

        private Integer integer(final XmlElement element) throws DeploymentException
        {
            try
            {
                return Integer.valueOf(element.text());
            }
            catch (final NumberFormatException ex)
            {
                throw error(element, '<' + element.localName() + "> '" + element.text() + "' is not an integer");
            }
        }

        private String nonEmpty(final XmlElement element) throws DeploymentException
        {
            final String text = element.text();
            if (text.isEmpty())
            {
                throw error(element, '<' + element.localName() + "> is empty");
            }
            return text;
        }

        private String requiredText(final XmlElement parent, final String name) throws DeploymentException
        {
            final XmlElement child = single(parent, name);
            if (null == child || child.text().isEmpty())
            {
                throw error(parent, '<' + parent.localName() + "> has no <" + name + '>');
            }
            return child.text();
        }

        private String optionalText(final XmlElement parent, final String name, final String absent)
            throws DeploymentException
        {
            final XmlElement child = single(parent, name);
            return null == child ? absent : child.text();
        }

        private List<String> texts(final XmlElement parent, final String name)
        {
            final List<String> texts = new ArrayList<>();
            for (final XmlElement child : children(parent, name))
            {
                texts.add(child.text());
            }
            return texts;
        }

        private XmlElement single(final XmlElement parent, final String name) throws DeploymentException
        {
            XmlElement found = null;
            for (final XmlElement child : parent.children())
            {
                if (known(child) && name.equals(child.localName()))
                {
                    if (null != found)
                    {
                        throw error(child, "second <" + name + "> in <" + parent.localName() + "> (first at line "
                            + found.line() + ')');
                    }
                    found = child;
                }
            }
            return found;
        }

        private static List<XmlElement> children(final XmlElement parent, final String name)
        {
            final List<XmlElement> found = new ArrayList<>();
            for (final XmlElement child : parent.children())
            {
                if (known(child) && name.equals(child.localName()))
                {
                    found.add(child);
                }
            }
            return found;
        }

        private static List<XmlElement> knownChildren(final XmlElement parent)
        {
            final List<XmlElement> found = new ArrayList<>();
            for (final XmlElement child : parent.children())
            {
                if (known(child))
                {
                    found.add(child);
                }
            }
            return found;
        }

        private static boolean known(final XmlElement element)
        {
            return KNOWN_NAMESPACES.contains(element.namespace());
        }

        private DeploymentException error(final XmlElement element, final String reason)
        {
            return new DeploymentException(source, element.line(), reason);
        }
    }
}
