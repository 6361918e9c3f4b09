package io.sipline.container.deploy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.servlet.sip.SipServletRequest;

import io.sipline.container.naming.EnvEntry;

/**
 * The deployment model of one SIP application: what {@code WEB-INF/sip.xml} declares, possibly merged with the
 * annotations of its classes ({@link DeploymentDescriptors#merge}).
 * <p>
 * Servlet selection (JSR 289 §16.2): a {@link #mainServlet() main servlet} receives every initial request routed to
 * the application; otherwise the {@link #mappings() servlet mappings} are tried in document order (the 1.0 model,
 * still allowed in 1.1). The two are mutually exclusive.
 * <p>
 * Threading: immutable once built; shared freely between shards. The {@link Builder} is single-threaded.
 */
public final class SipApplicationDescriptor
{
    private final String source;
    private final SipXmlDialect dialect;
    private final String appName;
    private final String displayName;
    private final String description;
    private final boolean distributable;
    private final boolean metadataComplete;
    private final Map<String, String> contextParams;
    private final Map<String, EnvEntry> envEntries;
    private final List<ListenerDefinition> listeners;
    private final Map<String, ServletDefinition> servlets;
    private final String mainServlet;
    private final int mainServletLine;
    private final List<ServletMapping> mappings;
    private final Integer sessionTimeoutMinutes;
    private final Integer proxyTimeoutSeconds;
    private final List<SecurityConstraint> securityConstraints;
    private final LoginConfig loginConfig;
    private final List<String> securityRoles;
    private final ApplicationKeyMethod applicationKey;

    private SipApplicationDescriptor(final Builder builder)
    {
        source = builder.source;
        dialect = builder.dialect;
        appName = builder.appName;
        displayName = builder.displayName;
        description = builder.description;
        distributable = builder.distributable;
        metadataComplete = builder.metadataComplete;
        contextParams = Descriptors.freeze(builder.contextParams);
        envEntries = Descriptors.freeze(builder.envEntries);
        listeners = List.copyOf(builder.listeners);
        servlets = Descriptors.freeze(builder.servlets);
        mainServlet = builder.mainServlet;
        mainServletLine = builder.mainServletLine;
        mappings = List.copyOf(builder.mappings);
        sessionTimeoutMinutes = builder.sessionTimeoutMinutes;
        proxyTimeoutSeconds = builder.proxyTimeoutSeconds;
        securityConstraints = List.copyOf(builder.securityConstraints);
        loginConfig = builder.loginConfig;
        securityRoles = List.copyOf(builder.securityRoles);
        applicationKey = builder.applicationKey;
    }

    /**
     * @return a new, empty builder.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * @return a builder holding a copy of this descriptor.
     */
    public Builder toBuilder()
    {
        final Builder builder = new Builder()
            .source(source)
            .dialect(dialect)
            .appName(appName)
            .displayName(displayName)
            .description(description)
            .distributable(distributable)
            .metadataComplete(metadataComplete)
            .mainServlet(mainServlet, mainServletLine)
            .sessionTimeoutMinutes(sessionTimeoutMinutes)
            .proxyTimeoutSeconds(proxyTimeoutSeconds)
            .loginConfig(loginConfig)
            .applicationKey(applicationKey);
        builder.contextParams.putAll(contextParams);
        builder.envEntries.putAll(envEntries);
        builder.listeners.addAll(listeners);
        builder.servlets.putAll(servlets);
        builder.mappings.addAll(mappings);
        builder.securityConstraints.addAll(securityConstraints);
        builder.securityRoles.addAll(securityRoles);
        return builder;
    }

    /**
     * Selects the servlet for an initial request routed to this application (JSR 289 §16.2): the main servlet when
     * there is one, else the first mapping whose rule matches.
     *
     * @param request the initial request.
     * @return the servlet's name, or {@code null} when nothing matches (the container answers 404).
     */
    public String selectServlet(final SipServletRequest request)
    {
        if (null != mainServlet)
        {
            return mainServlet;
        }
        for (final ServletMapping mapping : mappings)
        {
            if (mapping.rule().matches(request))
            {
                return mapping.servletName();
            }
        }
        return null;
    }

    /**
     * Checks what refers to a servlet by name ({@code main-servlet}, mappings, security constraints) against the
     * declared servlets. Run after annotations are merged, since a name may refer to an annotated servlet.
     *
     * @throws DeploymentException naming the descriptor and the line of the dangling reference.
     */
    public void validateReferences() throws DeploymentException
    {
        if (null != mainServlet && !servlets.containsKey(mainServlet))
        {
            throw new DeploymentException(source, mainServletLine,
                "main-servlet '" + mainServlet + "' is not a declared servlet; declared: " + servlets.keySet());
        }
        for (final ServletMapping mapping : mappings)
        {
            if (!servlets.containsKey(mapping.servletName()))
            {
                throw new DeploymentException(source, mapping.line(), "servlet-mapping refers to unknown servlet '"
                    + mapping.servletName() + "'; declared: " + servlets.keySet());
            }
        }
        for (final SecurityConstraint constraint : securityConstraints)
        {
            for (final SecurityConstraint.ResourceCollection collection : constraint.resourceCollections())
            {
                for (final String name : collection.servletNames())
                {
                    if (!servlets.containsKey(name))
                    {
                        throw new DeploymentException(source, constraint.line(),
                            "security-constraint refers to unknown servlet '" + name + "'");
                    }
                }
            }
        }
    }

    /**
     * @return the descriptor's file (for a merged model, the sip.xml entry or the archive), for error messages.
     */
    public String source()
    {
        return source;
    }

    /**
     * @return the sip.xml dialect, or {@code null} when the application has no sip.xml (annotations only).
     */
    public SipXmlDialect dialect()
    {
        return dialect;
    }

    /**
     * @return the application name (JSR 289 §16.1: {@code app-name} or {@code @SipApplication(name)}), or
     *     {@code null} when none is declared yet.
     */
    public String appName()
    {
        return appName;
    }

    /**
     * @return the display name, or {@code null}.
     */
    public String displayName()
    {
        return displayName;
    }

    /**
     * @return the description, or {@code null}.
     */
    public String description()
    {
        return description;
    }

    /**
     * @return whether {@code <distributable/>} or {@code @SipApplication(distributable = true)} was declared.
     */
    public boolean distributable()
    {
        return distributable;
    }

    /**
     * @return whether the descriptor says {@code metadata-complete="true"}: annotations are then not scanned.
     */
    public boolean metadataComplete()
    {
        return metadataComplete;
    }

    /**
     * @return the context parameters, in declaration order.
     */
    public Map<String, String> contextParams()
    {
        return contextParams;
    }

    /**
     * @return the {@code env-entry} values of sip.xml and web.xml by name (relative to {@code java:comp/env}), in
     *         declaration order.
     */
    public Map<String, EnvEntry> envEntries()
    {
        return envEntries;
    }

    /**
     * @return the listeners, in declaration order (descriptor first, then annotations).
     */
    public List<ListenerDefinition> listeners()
    {
        return listeners;
    }

    /**
     * @return the servlets by name, in declaration order (descriptor first, then annotations).
     */
    public Map<String, ServletDefinition> servlets()
    {
        return servlets;
    }

    /**
     * @return the main servlet's name, or {@code null} when selection is by mappings.
     */
    public String mainServlet()
    {
        return mainServlet;
    }

    /**
     * @return the servlet mappings, in document order.
     */
    public List<ServletMapping> mappings()
    {
        return mappings;
    }

    /**
     * @return {@code session-config/session-timeout} in minutes ({@code <= 0}: never expires), or {@code null}.
     */
    public Integer sessionTimeoutMinutes()
    {
        return sessionTimeoutMinutes;
    }

    /**
     * @return {@code proxy-config} proxy timeout in seconds ({@code proxy-timeout}, or the deprecated
     *     {@code sequential-search-timeout}), or {@code null}.
     */
    public Integer proxyTimeoutSeconds()
    {
        return proxyTimeoutSeconds;
    }

    /**
     * @return the security constraints (model only).
     */
    public List<SecurityConstraint> securityConstraints()
    {
        return securityConstraints;
    }

    /**
     * @return the login configuration, or {@code null}.
     */
    public LoginConfig loginConfig()
    {
        return loginConfig;
    }

    /**
     * @return the declared security role names.
     */
    public List<String> securityRoles()
    {
        return securityRoles;
    }

    /**
     * @return the {@code @SipApplicationKey} method, or {@code null}.
     */
    public ApplicationKeyMethod applicationKey()
    {
        return applicationKey;
    }

    @Override
    public String toString()
    {
        return "SipApplicationDescriptor{" + appName + ", servlets=" + servlets.keySet()
            + (null != mainServlet ? ", main=" + mainServlet : ", mappings=" + mappings.size()) + ", source=" + source
            + '}';
    }

    /**
     * Accumulates a descriptor. Collections are filled through the {@code add*}/{@code put*} methods.
     * <p>
     * Threading: single-threaded.
     */
    public static final class Builder
    {
        private String source;
        private SipXmlDialect dialect;
        private String appName;
        private String displayName;
        private String description;
        private boolean distributable;
        private boolean metadataComplete;
        private final Map<String, String> contextParams = new LinkedHashMap<>();
        private final Map<String, EnvEntry> envEntries = new LinkedHashMap<>();
        private final List<ListenerDefinition> listeners = new ArrayList<>();
        private final Map<String, ServletDefinition> servlets = new LinkedHashMap<>();
        private String mainServlet;
        private int mainServletLine = DeploymentException.NO_LINE;
        private final List<ServletMapping> mappings = new ArrayList<>();
        private Integer sessionTimeoutMinutes;
        private Integer proxyTimeoutSeconds;
        private final List<SecurityConstraint> securityConstraints = new ArrayList<>();
        private LoginConfig loginConfig;
        private final List<String> securityRoles = new ArrayList<>();
        private ApplicationKeyMethod applicationKey;

        private Builder()
        {
        }

        /**
         * @param source the descriptor's file name for error messages.
         * @return this builder.
         */
        public Builder source(final String source)
        {
            this.source = source;
            return this;
        }

        /**
         * @param dialect the sip.xml dialect, or {@code null}.
         * @return this builder.
         */
        public Builder dialect(final SipXmlDialect dialect)
        {
            this.dialect = dialect;
            return this;
        }

        /**
         * @param appName the application name.
         * @return this builder.
         */
        public Builder appName(final String appName)
        {
            this.appName = appName;
            return this;
        }

        /**
         * @param displayName the display name.
         * @return this builder.
         */
        public Builder displayName(final String displayName)
        {
            this.displayName = displayName;
            return this;
        }

        /**
         * @param description the description.
         * @return this builder.
         */
        public Builder description(final String description)
        {
            this.description = description;
            return this;
        }

        /**
         * @param distributable whether the application is distributable.
         * @return this builder.
         */
        public Builder distributable(final boolean distributable)
        {
            this.distributable = distributable;
            return this;
        }

        /**
         * @param metadataComplete whether annotations are to be ignored.
         * @return this builder.
         */
        public Builder metadataComplete(final boolean metadataComplete)
        {
            this.metadataComplete = metadataComplete;
            return this;
        }

        /**
         * @param name  a context parameter's name.
         * @param value its value.
         * @return the previous value, or {@code null}.
         */
        public String putContextParam(final String name, final String value)
        {
            return contextParams.put(name, value);
        }

        /**
         * @param entry an {@code env-entry}.
         * @return the previous entry of that name, or {@code null}.
         */
        public EnvEntry putEnvEntry(final EnvEntry entry)
        {
            return envEntries.put(entry.name(), entry);
        }

        /**
         * @param entry an {@code env-entry}, kept only when none of that name is declared yet.
         * @return whether it was kept.
         */
        public boolean addEnvEntryIfAbsent(final EnvEntry entry)
        {
            return null == envEntries.putIfAbsent(entry.name(), entry);
        }

        /**
         * @param listener a listener.
         * @return this builder.
         */
        public Builder addListener(final ListenerDefinition listener)
        {
            listeners.add(listener);
            return this;
        }

        /**
         * @param servlet a servlet.
         * @return the servlet previously declared with that name, or {@code null}.
         */
        public ServletDefinition putServlet(final ServletDefinition servlet)
        {
            return servlets.put(servlet.name(), servlet);
        }

        /**
         * @return the servlets declared so far (read-only view).
         */
        public Collection<ServletDefinition> servlets()
        {
            return Collections.unmodifiableCollection(servlets.values());
        }

        /**
         * @return the listeners declared so far (read-only view).
         */
        public List<ListenerDefinition> listeners()
        {
            return Collections.unmodifiableList(listeners);
        }

        /**
         * @param mainServlet the main servlet's name, or {@code null}.
         * @param line        the line that declared it.
         * @return this builder.
         */
        public Builder mainServlet(final String mainServlet, final int line)
        {
            this.mainServlet = mainServlet;
            this.mainServletLine = line;
            return this;
        }

        /**
         * @param mapping a servlet mapping.
         * @return this builder.
         */
        public Builder addMapping(final ServletMapping mapping)
        {
            mappings.add(mapping);
            return this;
        }

        /**
         * @param minutes the session timeout, or {@code null}.
         * @return this builder.
         */
        public Builder sessionTimeoutMinutes(final Integer minutes)
        {
            this.sessionTimeoutMinutes = minutes;
            return this;
        }

        /**
         * @param seconds the proxy timeout, or {@code null}.
         * @return this builder.
         */
        public Builder proxyTimeoutSeconds(final Integer seconds)
        {
            this.proxyTimeoutSeconds = seconds;
            return this;
        }

        /**
         * @param constraint a security constraint.
         * @return this builder.
         */
        public Builder addSecurityConstraint(final SecurityConstraint constraint)
        {
            securityConstraints.add(constraint);
            return this;
        }

        /**
         * @param loginConfig the login configuration, or {@code null}.
         * @return this builder.
         */
        public Builder loginConfig(final LoginConfig loginConfig)
        {
            this.loginConfig = loginConfig;
            return this;
        }

        /**
         * @param roleName a security role.
         * @return this builder.
         */
        public Builder addSecurityRole(final String roleName)
        {
            securityRoles.add(roleName);
            return this;
        }

        /**
         * @param applicationKey the {@code @SipApplicationKey} method, or {@code null}.
         * @return this builder.
         */
        public Builder applicationKey(final ApplicationKeyMethod applicationKey)
        {
            this.applicationKey = applicationKey;
            return this;
        }

        /**
         * @return the immutable descriptor (references between its parts are not checked here, see
         *     {@link SipApplicationDescriptor#validateReferences()}).
         */
        public SipApplicationDescriptor build()
        {
            return new SipApplicationDescriptor(this);
        }
    }
}
