package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The Netty classes a shard would otherwise load on its first chunk free exist in the Netty we build with. */
class LazyClassesTest
{
    @Test
    void shouldLoadEveryNettyAllocatorEventClass()
    {
        assertEquals(6, LazyClasses.load(), "Netty 4.2's six allocator events; a Netty upgrade that renames them "
            + "must update LazyClasses");
    }
}
