package io.sipline.media.srtp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

/**
 * {@link SsrcIndexStreamLookup}: its answers, and {@link SsrcIndexStreamLookup#onlyStream()}, must be right at every
 * size and through every transition, SSRC 0 and negative SSRCs included, also at one stream, which the context
 * answers itself but a caller of the lookup alone does not (the context's path: {@code SrtpContextSingleStreamTest});
 * the template role stays in the context (an unknown SSRC gets a stream only once its packet authenticates); and
 * lookups allocate nothing.
 */
class SsrcIndexStreamLookupTest
{
    /** SSRCs at the edges of the 32-bit range and of the sign, beside ordinary ones. */
    private static final int[] EDGES = {
        0, 1, -1, 2, -2, Integer.MIN_VALUE, Integer.MIN_VALUE + 1, Integer.MAX_VALUE, Integer.MAX_VALUE - 1,
        0x8000_0001, 0x1234_5678, 0xDEAD_BEEF};

    private static SrtpStream stream(final int ssrc)
    {
        return new SrtpStream(ssrc, 64, null);
    }

    @Test
    void shouldFindNothingWhileEmpty()
    {
        final SsrcIndexStreamLookup lookup = new SsrcIndexStreamLookup(4);
        for (final int ssrc : EDGES)
        {
            assertNull(lookup.find(ssrc), "SSRC " + ssrc);
        }
        assertNull(lookup.remove(0));
        assertEquals(0, lookup.size());
        assertFalse(lookup.isFull());
    }

    @Test
    void shouldFindTheSingleStreamAndMissEveryOtherSsrc()
    {
        for (final int member : EDGES)
        {
            final SsrcIndexStreamLookup lookup = new SsrcIndexStreamLookup(4);
            final SrtpStream stream = stream(member);
            assertTrue(lookup.add(stream));
            assertSame(stream, lookup.find(member), "SSRC " + member);
            for (final int other : EDGES)
            {
                if (other != member)
                {
                    assertNull(lookup.find(other), other + " with only " + member);
                }
            }
            assertNull(lookup.find(member + 1));
            assertNull(lookup.find(member - 1));
            assertNull(lookup.find(~member));
            assertEquals(1, lookup.size());
        }
    }

    @Test
    void shouldAnswerRightFromZeroToOneToTwoToOneToZero()
    {
        for (final int a : EDGES)
        {
            for (final int b : EDGES)
            {
                if (a == b)
                {
                    continue;
                }
                for (final boolean removeFirstAddedFirst : new boolean[] {true, false})
                {
                    final SsrcIndexStreamLookup lookup = new SsrcIndexStreamLookup(4);
                    final SrtpStream sa = stream(a);
                    final SrtpStream sb = stream(b);
                    final String name = a + ", " + b + (removeFirstAddedFirst ? ", a out first" : ", b out first");
                    assertTrue(lookup.add(sa), name);
                    expect(lookup, name + " (1)", sa);
                    assertTrue(lookup.add(sb), name);
                    expect(lookup, name + " (2)", sa, sb);
                    final SrtpStream first = removeFirstAddedFirst ? sa : sb;
                    final SrtpStream second = removeFirstAddedFirst ? sb : sa;
                    assertSame(first, lookup.remove(first.ssrc()), name);
                    assertNull(lookup.remove(first.ssrc()), name + ": removed twice");
                    expect(lookup, name + " (2 -> 1)", second);
                    assertSame(second, lookup.remove(second.ssrc()), name);
                    expect(lookup, name + " (0)");
                    assertTrue(lookup.add(first), name + ": added again after emptied");
                    expect(lookup, name + " (0 -> 1)", first);
                }
            }
        }
    }

    @Test
    void shouldFindConsecutiveSsrcsUpToTheLimitAndBack()
    {
        // Consecutive SSRCs, from 8 below 0: the index's one-step scan and its table both see neighbouring keys.
        final SsrcIndexStreamLookup lookup = new SsrcIndexStreamLookup(16);
        final SrtpStream[] streams = new SrtpStream[16];
        for (int i = 0; i < streams.length; i++)
        {
            streams[i] = stream(i - 8);
            assertTrue(lookup.add(streams[i]));
            final SrtpStream[] live = new SrtpStream[i + 1];
            System.arraycopy(streams, 0, live, 0, i + 1);
            expect(lookup, "after adding " + (i - 8), live);
        }
        assertTrue(lookup.isFull());
        assertFalse(lookup.add(stream(100)), "past the limit");
        assertNull(lookup.find(100));
        for (int i = streams.length - 1; i > 0; i--)
        {
            assertSame(streams[i], lookup.remove(i - 8));
            final SrtpStream[] live = new SrtpStream[i];
            System.arraycopy(streams, 0, live, 0, i);
            expect(lookup, "after removing " + (i - 8), live);
        }
    }

    @Test
    void shouldRefuseADuplicateOrAStreamPastTheLimitAndKeepTheSingleStream()
    {
        final SrtpStream a = stream(-7);
        final SsrcIndexStreamLookup one = new SsrcIndexStreamLookup(1);
        assertTrue(one.add(a));
        assertTrue(one.isFull());
        assertFalse(one.add(stream(7)), "past the limit");
        expect(one, "limit 1", a);

        final SsrcIndexStreamLookup two = new SsrcIndexStreamLookup(2);
        assertTrue(two.add(a));
        assertFalse(two.add(stream(-7)), "duplicate");
        expect(two, "duplicate refused", a);
        assertThrows(IllegalArgumentException.class, () -> new SsrcIndexStreamLookup(0));
    }

    @Test
    void shouldAgreeWithAMapThroughRandomAddsAndRemoves()
    {
        final Random random = new Random(7);
        final int[] pool = new int[EDGES.length + 12];
        System.arraycopy(EDGES, 0, pool, 0, EDGES.length);
        for (int i = EDGES.length; i < pool.length; i++)
        {
            pool[i] = i - EDGES.length - 6;
        }
        final int limit = 6;
        final SsrcIndexStreamLookup lookup = new SsrcIndexStreamLookup(limit);
        final Map<Integer, SrtpStream> model = new HashMap<>();
        for (int op = 0; op < 20_000; op++)
        {
            final int ssrc = pool[random.nextInt(pool.length)];
            if (random.nextBoolean())
            {
                final SrtpStream stream = stream(ssrc);
                final boolean expected = model.size() < limit && !model.containsKey(ssrc);
                assertEquals(expected, lookup.add(stream), "add " + ssrc + " at op " + op);
                if (expected)
                {
                    model.put(ssrc, stream);
                }
            }
            else
            {
                assertSame(model.remove(ssrc), lookup.remove(ssrc), "remove " + ssrc + " at op " + op);
            }
            assertEquals(model.size(), lookup.size());
            assertEquals(model.size() >= limit, lookup.isFull());
            assertSame(1 == model.size() ? model.values().iterator().next() : null, lookup.onlyStream());
            for (final int query : pool)
            {
                assertSame(model.get(query), lookup.find(query), "find " + query + " at op " + op);
            }
        }
    }

    @Test
    void shouldLeaveTheTemplateRoleToTheContext()
    {
        // An inbound context under a template policy: a forged packet of a new SSRC gets nothing, an authentic one
        // gets its stream after authenticating; the lookup never hands out a stream that was not added.
        final SrtpCryptoSuite suite = SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80;
        final SrtpPolicy policy = SrtpPolicy.builder(suite).masterKey(SrtpTestSupport.keyMaterial(suite, 1)).build();
        final SrtpPolicy forger = SrtpPolicy.builder(suite).masterKey(SrtpTestSupport.keyMaterial(suite, 2)).build();
        final SsrcIndexStreamLookup lookup = new SsrcIndexStreamLookup(4);
        final SrtpContext rx = new SrtpContext(policy, SrtpContext.Direction.INBOUND, lookup);
        final SrtpContext tx = new SrtpContext(policy, SrtpContext.Direction.OUTBOUND);
        final SrtpContext forged = new SrtpContext(forger, SrtpContext.Direction.OUTBOUND);

        assertEquals(20, rx.unprotectRtp(packet(tx, 0), 0, 30));
        assertEquals(1, lookup.size());
        final SrtpStream first = lookup.find(0);
        assertSame(first, rx.stream(0));

        assertEquals(SrtpResult.AUTH_FAIL, rx.unprotectRtp(packet(forged, -1), 0, 30));
        assertNull(lookup.find(-1), "a forged SSRC takes no stream");
        assertEquals(1, lookup.size());
        assertSame(first, lookup.find(0));

        assertEquals(20, rx.unprotectRtp(packet(tx, -1), 0, 30));
        assertEquals(2, lookup.size());
        assertSame(rx.stream(-1), lookup.find(-1));
        assertEquals(-1, lookup.find(-1).ssrc());
        assertSame(first, lookup.find(0));

        assertTrue(rx.removeStream(0));
        assertNull(lookup.find(0));
        assertEquals(-1, lookup.find(-1).ssrc());
        assertTrue(rx.removeStream(-1));
        assertNull(lookup.find(-1));
        assertEquals(0, rx.streamCount());
    }

    @Test
    void shouldNotAllocateOnLookup()
    {
        final SsrcIndexStreamLookup lookup = new SsrcIndexStreamLookup(4);
        final SrtpStream a = stream(0);
        final SrtpStream b = stream(-5);
        final int[] found = new int[1];
        final Runnable lookups = () ->
        {
            int count = 0;
            for (int i = 0; i < 20_000; i++)
            {
                count += null != lookup.find(i & 7) ? 1 : 0;
                count += null != lookup.find(-5) ? 1 : 0;
            }
            found[0] = count;
        };
        assertTrue(lookup.add(a));
        final long atOne = AllocationMeter.leastBytes(lookups, lookups, 30, 256);
        assertTrue(atOne <= 256, "lookups at N = 1 allocated " + atOne + " B");
        assertEquals(20_000 / 8, found[0]);
        assertTrue(lookup.add(b));
        final long atTwo = AllocationMeter.leastBytes(lookups, lookups, 30, 256);
        assertTrue(atTwo <= 256, "lookups at N = 2 allocated " + atTwo + " B");
        assertEquals(20_000 / 8 + 20_000, found[0]);
        assertSame(b, lookup.remove(-5));
        assertSame(a, lookup.remove(0));

        // add and remove are not measured here: their only allocation-prone part is the index's vector scan, whose
        // steady-state add/remove SsrcIndexAllocationTest measures on the index itself. Measured through this
        // lookup (1 -> 0 -> 1 repeated after 40,000 rounds of warm-up) the C2 code allocated 136 B per remove/add
        // (boxed vectors) in 1 run of 4, with or without a single-stream shortcut in the lookup.
    }

    private static byte[] packet(final SrtpContext tx, final int ssrc)
    {
        final byte[] p = SrtpTestSupport.rtp(1, ssrc, 8, 0, false, 16);
        assertEquals(30, tx.protectRtp(p, 0, 20));
        return p;
    }

    /**
     * Exactly {@code live} are found, each under its SSRC, and the neighbours of each SSRC are not; the only stream
     * is reported as such when there is one.
     */
    private static void expect(final SsrcIndexStreamLookup lookup, final String name, final SrtpStream... live)
    {
        assertEquals(live.length, lookup.size(), name);
        assertSame(1 == live.length ? live[0] : null, lookup.onlyStream(), name + ": only stream");
        for (final SrtpStream stream : live)
        {
            assertSame(stream, lookup.find(stream.ssrc()), name + ": " + stream.ssrc());
        }
        for (final int query : EDGES)
        {
            assertSame(expected(live, query), lookup.find(query), name + ": query " + query);
        }
        for (final SrtpStream stream : live)
        {
            for (final int near : new int[] {stream.ssrc() - 1, stream.ssrc() + 1, stream.ssrc() + 2})
            {
                assertSame(expected(live, near), lookup.find(near), name + ": query " + near);
            }
        }
    }

    private static SrtpStream expected(final SrtpStream[] live, final int ssrc)
    {
        for (final SrtpStream stream : live)
        {
            if (stream.ssrc() == ssrc)
            {
                return stream;
            }
        }
        return null;
    }
}
