package io.sipline.sip.test;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

class NettyLeakGuardTest
{
    @Test
    void shouldFailWhenABufferIsCollectedUnreleased() throws Exception
    {
        final NettyLeakGuard guard = new NettyLeakGuard();
        guard.beforeAll(null);
        leak();
        final ExtensionContext context = (ExtensionContext)java.lang.reflect.Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {ExtensionContext.class},
            (proxy, method, args) -> "getDisplayName".equals(method.getName()) ? "probe" : null);
        assertThrows(AssertionError.class, () -> guard.afterAll(context));
    }

    private static void leak()
    {
        PooledByteBufAllocator.DEFAULT.directBuffer(64).writeLong(42);
    }
}
