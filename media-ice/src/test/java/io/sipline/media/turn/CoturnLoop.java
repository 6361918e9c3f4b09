package io.sipline.media.turn;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The event loop of the tests that talk to a real coturn: the {@link Coturn} child process, one {@link Selector} for
 * the test's sockets, and {@link #pump} that selects, hands the wall-clock time to the test's receive-and-poll step,
 * and fails with coturn's log when a condition is not met within 15 s. A JUnit extension
 * ({@code @RegisterExtension}): coturn starts before each test (skipped when not installed); after it, what was
 * registered is closed, then the selector, and coturn is stopped by its process handle.
 *
 * <p>Owned by the test thread.
 */
public final class CoturnLoop implements BeforeEachCallback, AfterEachCallback
{
    private final List<AutoCloseable> closing = new ArrayList<>();
    private Coturn coturn;
    private Selector selector;

    @Override
    public void beforeEach(final ExtensionContext context) throws IOException
    {
        assumeTrue(Coturn.available(), "coturn not installed");
        coturn = Coturn.start();
        selector = Selector.open();
    }

    /** @return the coturn server. */
    public Coturn coturn()
    {
        return coturn;
    }

    /** @return the selector to register sockets with. */
    public Selector selector()
    {
        return selector;
    }

    /**
     * @param closeable closed by {@link #close}, in registration order.
     */
    public void closeLater(final AutoCloseable closeable)
    {
        closing.add(closeable);
    }

    /**
     * Runs {@code step} with the wall-clock time after each select (at most 5 ms apart) until {@code done} holds.
     *
     * @param done the condition.
     * @param step receives and polls.
     * @throws IOException from the selector.
     */
    public void pump(final BooleanSupplier done, final LongConsumer step) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!done.getAsBoolean())
        {
            assertTrue(System.nanoTime() - deadline < 0, () -> "timed out; coturn log:\n" + coturn.log());
            selector.select(5);
            selector.selectedKeys().clear();
            step.accept(System.currentTimeMillis());
        }
    }

    @Override
    public void afterEach(final ExtensionContext context) throws Exception
    {
        try
        {
            for (final AutoCloseable c : closing)
            {
                c.close();
            }
            closing.clear();
            if (null != selector)
            {
                selector.close();
            }
        }
        finally
        {
            if (null != coturn)
            {
                coturn.close();
            }
        }
    }
}
