package io.sipline.container.naming;

import java.util.Hashtable;

import javax.naming.Context;
import javax.naming.spi.InitialContextFactory;

/**
 * The container's {@link InitialContextFactory}: the initial context of a thread is a {@link ReadOnlyContext} over
 * the names of the application that thread runs code of ({@link ApplicationContexts#current()}), chosen when the
 * context is made. {@link ContainerContextFactoryBuilder} hands it to every {@code new InitialContext()} that names
 * no other factory; naming it in {@code java.naming.factory.initial} works too.
 * <p>
 * Threading: stateless; safe from any thread.
 */
public final class ContainerInitialContextFactory implements InitialContextFactory
{
    /** Public for {@code java.naming.factory.initial}. */
    public ContainerInitialContextFactory()
    {
        // stateless
    }

    @Override
    public Context getInitialContext(final Hashtable<?, ?> environment)
    {
        return new ReadOnlyContext(ApplicationContexts.current(), "", environment);
    }
}
