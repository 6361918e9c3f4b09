package io.sipline.sip.test;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Makes a leaked Netty buffer fail the test class that leaked it, instead of a log line nobody reads.
 * Registered for every test class by JUnit's extension auto-detection
 * ({@code META-INF/services/org.junit.jupiter.api.extension.Extension}); the leak detector runs at {@code paranoid}
 * (surefire's argLine), so every buffer is tracked.
 *
 * <p>After each test class it collects garbage and allocates a few buffers, which makes the detector look at the
 * buffers that were collected unreleased; each report is recorded here and fails the class. The JVM enqueues the weak
 * references of collected objects on its Reference Handler thread after the collection, so each round waits (up to a
 * deadline) for a sentinel reference cleared by the same collection before it allocates: without that wait the
 * detector sometimes polled its queue before the leaked buffer's reference was on it. Thread-safe.
 */
public final class NettyLeakGuard implements BeforeAllCallback, AfterAllCallback
{
    private static final List<String> LEAKS = new ArrayList<>();

    static
    {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    @Override
    public void beforeAll(final ExtensionContext context)
    {
        synchronized (LEAKS)
        {
            LEAKS.clear();
        }
    }

    @Override
    public void afterAll(final ExtensionContext context)
    {
        for (int round = 0; round < 3; round++)
        {
            collectAndAwaitReferenceProcessing();
            for (int i = 0; i < 8; i++)
            {
                final ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                probe.release();
            }
        }
        synchronized (LEAKS)
        {
            if (!LEAKS.isEmpty())
            {
                final String report = String.join("\n---\n", LEAKS);
                LEAKS.clear();
                throw new AssertionError("Netty buffer leak in " + context.getDisplayName() + ":\n" + report);
            }
        }
    }

    /** A full collection, then the sentinel's reference on its queue: the collection's references were processed. */
    private static void collectAndAwaitReferenceProcessing()
    {
        final ReferenceQueue<Object> queue = new ReferenceQueue<>();
        final WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
        System.gc();
        try
        {
            for (int attempt = 0; attempt < 10 && null == queue.remove(100); attempt++)
            {
                System.gc(); // a collector that did not clear the sentinel yet (concurrent cycle still running)
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        sentinel.clear();
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory
    {
        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(
            final Class<T> resource, final int samplingInterval, final long maxActive)
        {
            return new RecordingDetector<>(resource, samplingInterval);
        }

        @Override
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(final Class<T> resource, final int samplingInterval)
        {
            return new RecordingDetector<>(resource, samplingInterval);
        }
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T>
    {
        RecordingDetector(final Class<T> resource, final int samplingInterval)
        {
            super(resource, samplingInterval);
        }

        @Override
        protected void reportTracedLeak(final String resourceType, final String records)
        {
            synchronized (LEAKS)
            {
                LEAKS.add(resourceType + " leaked:" + records);
            }
        }

        @Override
        protected void reportUntracedLeak(final String resourceType)
        {
            synchronized (LEAKS)
            {
                LEAKS.add(resourceType + " leaked (untraced)");
            }
        }
    }
}
