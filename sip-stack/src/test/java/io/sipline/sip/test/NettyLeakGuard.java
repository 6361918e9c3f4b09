package io.sipline.sip.test;

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
 * Makes a leaked Netty buffer fail the test class that leaked it, instead of a log line nobody reads (DESIGN.md,
 * Memory rule 4). Registered for every test class by JUnit's extension auto-detection
 * ({@code META-INF/services/org.junit.jupiter.api.extension.Extension}); the leak detector runs at {@code paranoid}
 * (surefire's argLine), so every buffer is tracked.
 *
 * <p>After each test class it collects garbage and allocates a few buffers, which makes the detector look at the
 * buffers that were collected unreleased; each report is recorded here and fails the class. Thread-safe.
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
            System.gc();
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
