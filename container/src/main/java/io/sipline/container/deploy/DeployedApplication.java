package io.sipline.container.deploy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.EventListener;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import javax.servlet.sip.SipServlet;

/**
 * One application as deployed by {@link ApplicationDeployer}: its model, its class loader, and one instance of each
 * servlet and listener class, constructed but not yet initialised ({@code init} runs when dispatch starts,
 * Servlet 3.1 §2.3.2).
 * <p>
 * Threading: an immutable record (the servlet and listener instances themselves follow their own contracts);
 * {@link #close()} is called once, by the deployer, after the application has stopped.
 *
 * @param name        the application name (JSR 289 §18.2, {@code app-name}).
 * @param descriptor  the merged deployment model.
 * @param classLoader the application's class loader.
 * @param servlets    servlet name to instance, in declaration order.
 * @param listeners   listener instances, in declaration order.
 * @param source      the WAR or directory deployed.
 */
public record DeployedApplication(
    String name,
    SipApplicationDescriptor descriptor,
    ApplicationClassLoader classLoader,
    Map<String, SipServlet> servlets,
    List<EventListener> listeners,
    Path source) implements AutoCloseable
{
    /** Checks the parts and freezes the collections. */
    public DeployedApplication
    {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(descriptor, "descriptor");
        Objects.requireNonNull(classLoader, "classLoader");
        Objects.requireNonNull(source, "source");
        servlets = Descriptors.freeze(servlets);
        listeners = List.copyOf(listeners);
    }

    /**
     * Releases the class loader: closes the application's jars and deletes the extracted copy of a WAR.
     *
     * @throws IOException when a jar cannot be closed or a file cannot be deleted.
     */
    @Override
    public void close() throws IOException
    {
        classLoader.close();
    }
}
