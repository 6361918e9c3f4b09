package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The Netty classes a shard would otherwise load on its first chunk free or channel close exist in the Netty we build
 * with.
 */
class ClassPreloaderTest
{
    @Test
    void shouldLoadEveryNettyAllocatorEventAndChannelCloseClass()
    {
        assertEquals(16, ClassPreloader.load(), "Netty 4.2's six allocator events and ten close/deregister tasks; a "
            + "Netty upgrade that renames them must update ClassPreloader");
    }
}
