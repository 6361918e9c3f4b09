package io.sipline.media.srtp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The single-stream path of {@link SrtpContext#stream(int)}: with exactly one stream the
 * context answers from two fields of its own without asking its {@link SrtpStreamLookup}; with none or several it
 * answers what the lookup answers. Checked through every transition 0 -> 1 -> 2 -> 1 -> 0 (either stream left),
 * at SSRC 0, -1 and {@code Integer.MIN_VALUE}, for a provisional inbound stream admitted after authentication, at the
 * stream limit, and against the lookup and a map through random adds, removes and packets.
 */
class SrtpContextSingleStreamTest
{
    private static final SrtpCryptoSuite SUITE = SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80;

    /** The SSRCs whose bits are special (0, all ones, the sign bit alone), beside ordinary ones. */
    private static final int[] SSRCS = {0, -1, Integer.MIN_VALUE, 1, Integer.MAX_VALUE, 0x1234_5678};

    /**
     * The default lookup with a count of the context's calls of {@link #find}: a lookup a caller brings, through
     * which the tests see whether the context asked the lookup or answered from its own fields.
     */
    private static final class CountingLookup implements SrtpStreamLookup
    {
        private final SsrcIndexStreamLookup inner;
        private int finds;

        CountingLookup(final int limit)
        {
            this(new SsrcIndexStreamLookup(limit));
        }

        CountingLookup(final SsrcIndexStreamLookup inner)
        {
            this.inner = inner;
        }

        @Override
        public SrtpStream find(final int ssrc)
        {
            finds++;
            return inner.find(ssrc);
        }

        @Override
        public boolean add(final SrtpStream stream)
        {
            return inner.add(stream);
        }

        @Override
        public SrtpStream remove(final int ssrc)
        {
            return inner.remove(ssrc);
        }

        @Override
        public SrtpStream onlyStream()
        {
            return inner.onlyStream();
        }

        @Override
        public int size()
        {
            return inner.size();
        }

        @Override
        public boolean isFull()
        {
            return inner.isFull();
        }
    }

    private static SrtpPolicy policy(final int maxStreams, final int keySeed)
    {
        return SrtpPolicy.builder(SUITE).masterKey(SrtpTestSupport.keyMaterial(SUITE, keySeed))
            .maxStreams(maxStreams).build();
    }

    @Test
    void shouldAnswerFromItsOwnFieldsAtOneStreamFromZeroToOneToTwoToOneToZero()
    {
        for (final int a : SSRCS)
        {
            for (final int b : SSRCS)
            {
                if (a == b)
                {
                    continue;
                }
                for (final boolean aLeavesFirst : new boolean[] {true, false})
                {
                    final String name = a + ", " + b + (aLeavesFirst ? ", a leaves first" : ", b leaves first");
                    final CountingLookup lookup = new CountingLookup(4);
                    final SrtpContext context = new SrtpContext(policy(4, 1), SrtpContext.Direction.OUTBOUND, lookup);
                    verify(context, lookup, name + " (0)");
                    assertTrue(context.addStream(a), name);
                    final SrtpStream sa = lookup.inner.find(a);
                    verify(context, lookup, name + " (1)", sa);
                    assertTrue(context.addStream(b), name);
                    final SrtpStream sb = lookup.inner.find(b);
                    verify(context, lookup, name + " (2)", sa, sb);
                    final SrtpStream leaving = aLeavesFirst ? sa : sb;
                    final SrtpStream staying = aLeavesFirst ? sb : sa;
                    assertTrue(context.removeStream(leaving.ssrc()), name);
                    assertFalse(context.removeStream(leaving.ssrc()), name + ": removed twice");
                    verify(context, lookup, name + " (2 -> 1)", staying);
                    assertTrue(context.removeStream(staying.ssrc()), name);
                    verify(context, lookup, name + " (1 -> 0)");
                    assertTrue(context.addStream(leaving.ssrc()), name + ": added again");
                    verify(context, lookup, name + " (0 -> 1)", lookup.inner.find(leaving.ssrc()));
                }
            }
        }
    }

    @Test
    void shouldFindAnSsrcAddedWhereTheContextKeptItsNonMember()
    {
        // Consecutive SSRCs from -3: each add takes the SSRC next to the members, where the context looks first for
        // a non-member to keep in its single-stream SSRC field (0 at first, then the SSRC after the members).
        final CountingLookup lookup = new CountingLookup(16);
        final SrtpContext context = new SrtpContext(policy(16, 1), SrtpContext.Direction.INBOUND, lookup);
        final SrtpStream[] live = new SrtpStream[16];
        for (int i = 0; i < live.length; i++)
        {
            assertTrue(context.addStream(i - 3));
            live[i] = lookup.inner.find(i - 3);
            verify(context, lookup, "after adding " + (i - 3), Arrays.copyOf(live, i + 1));
        }
        assertFalse(context.addStream(100), "past the limit");
        for (int i = live.length - 1; i >= 0; i--)
        {
            assertTrue(context.removeStream(i - 3));
            verify(context, lookup, "after removing " + (i - 3), Arrays.copyOf(live, i));
        }
    }

    @Test
    void shouldTakeAProvisionalStreamIntoTheSingleStreamPathOnlyOnceItAuthenticates()
    {
        final CountingLookup lookup = new CountingLookup(4);
        final SrtpContext rx = new SrtpContext(policy(4, 1), SrtpContext.Direction.INBOUND, lookup);
        final SrtpContext tx = SrtpContext.outbound(policy(4, 1));
        final SrtpContext forger = SrtpContext.outbound(policy(4, 2));

        assertEquals(SrtpResult.AUTH_FAIL, rx.unprotectRtp(packet(forger, 0, 1), 0, 30));
        verify(rx, lookup, "a forged SSRC 0 takes no stream");

        assertEquals(20, rx.unprotectRtp(packet(tx, 0, 1), 0, 30));
        final SrtpStream zero = lookup.inner.find(0);
        assertNotNull(zero);
        verify(rx, lookup, "SSRC 0 authenticated", zero);

        assertEquals(SrtpResult.AUTH_FAIL, rx.unprotectRtp(packet(forger, -1, 1), 0, 30));
        verify(rx, lookup, "a forged SSRC -1 beside 0", zero);

        final byte[] firstOfMin = packet(tx, Integer.MIN_VALUE, 1);
        assertEquals(20, rx.unprotectRtp(firstOfMin.clone(), 0, 30));
        final SrtpStream min = lookup.inner.find(Integer.MIN_VALUE);
        assertNotNull(min);
        verify(rx, lookup, "MIN_VALUE authenticated beside 0", zero, min);

        assertTrue(rx.removeStream(0));
        verify(rx, lookup, "MIN_VALUE left alone", min);
        // The stream kept its state through the transitions: its first packet is now a replay, the next one passes.
        assertEquals(SrtpResult.REPLAY_DUPLICATE, rx.unprotectRtp(firstOfMin, 0, 30));
        assertEquals(20, rx.unprotectRtp(packet(tx, Integer.MIN_VALUE, 2), 0, 30));
        assertSame(min, rx.stream(Integer.MIN_VALUE));
    }

    @Test
    void shouldRefuseSsrcsPastTheLimitAndKeepTheSingleStream()
    {
        final CountingLookup one = new CountingLookup(1);
        final SrtpContext tx = new SrtpContext(policy(1, 1), SrtpContext.Direction.OUTBOUND, one);
        assertEquals(30, tx.protectRtp(SrtpTestSupport.rtp(1, 5, 8, 0, false, 16), 0, 20));
        final SrtpStream five = one.inner.find(5);
        assertEquals(SrtpResult.STREAM_LIMIT, tx.protectRtp(SrtpTestSupport.rtp(1, -1, 8, 0, false, 16), 0, 20));
        assertFalse(tx.addStream(0), "past the limit");
        assertEquals(1, tx.count(SrtpResult.STREAM_LIMIT));
        verify(tx, one, "limit 1, 5 kept", five);
        assertTrue(tx.removeStream(5));
        assertEquals(30, tx.protectRtp(SrtpTestSupport.rtp(1, -1, 8, 0, false, 16), 0, 20));
        verify(tx, one, "limit 1, -1 after 5 left", one.inner.find(-1));

        final CountingLookup two = new CountingLookup(2);
        final SrtpContext rx = new SrtpContext(policy(2, 1), SrtpContext.Direction.INBOUND, two);
        final SrtpContext sender = SrtpContext.outbound(policy(4, 1));
        assertEquals(20, rx.unprotectRtp(packet(sender, 0, 1), 0, 30));
        assertEquals(20, rx.unprotectRtp(packet(sender, -1, 1), 0, 30));
        assertEquals(SrtpResult.STREAM_LIMIT, rx.unprotectRtp(packet(sender, Integer.MIN_VALUE, 1), 0, 30));
        verify(rx, two, "limit 2", two.inner.find(0), two.inner.find(-1));
        assertTrue(rx.removeStream(-1));
        verify(rx, two, "limit 2, 0 left", two.inner.find(0));
        assertEquals(20, rx.unprotectRtp(packet(sender, Integer.MIN_VALUE, 2), 0, 30));
        verify(rx, two, "limit 2, MIN_VALUE admitted", two.inner.find(0), two.inner.find(Integer.MIN_VALUE));
    }

    @Test
    void shouldAnswerLikeItsLookupThroughRandomAddsRemovesAndPackets()
    {
        // Through a lookup the caller brought (the context calls it through the interface) and through the default
        // one (which the context calls through its typed field).
        randomAddsRemovesAndPackets(true);
        randomAddsRemovesAndPackets(false);
    }

    private static void randomAddsRemovesAndPackets(final boolean brought)
    {
        final Random random = new Random(8);
        final int[] pool = new int[SSRCS.length + 10];
        System.arraycopy(SSRCS, 0, pool, 0, SSRCS.length);
        for (int i = SSRCS.length; i < pool.length; i++)
        {
            pool[i] = i - SSRCS.length - 5;
        }
        final int limit = 5;
        final SsrcIndexStreamLookup inner = new SsrcIndexStreamLookup(limit);
        final CountingLookup lookup = brought ? new CountingLookup(inner) : null;
        final SrtpContext context = new SrtpContext(
            policy(limit, 1), SrtpContext.Direction.OUTBOUND, brought ? lookup : inner);
        final Map<Integer, SrtpStream> model = new HashMap<>();
        for (int op = 0; op < 5_000; op++)
        {
            final int ssrc = pool[random.nextInt(pool.length)];
            final String name = (brought ? "brought" : "default") + " lookup, op " + op + " on " + ssrc;
            final boolean admissible = model.containsKey(ssrc) || model.size() < limit;
            switch (random.nextInt(3))
            {
                case 0 -> assertEquals(admissible, context.addStream(ssrc), name + ": addStream");
                case 1 ->
                {
                    assertEquals(model.containsKey(ssrc), context.removeStream(ssrc), name + ": removeStream");
                    model.remove(ssrc);
                }
                default ->
                {
                    // The packet path: protect creates the stream of a new SSRC, or refuses it at the limit.
                    final int sealed = context.protectRtp(SrtpTestSupport.rtp(op, ssrc, 8, 0, false, 16), 0, 20);
                    assertEquals(admissible ? 30 : SrtpResult.STREAM_LIMIT, sealed, name + ": protect");
                }
            }
            if (admissible && !model.containsKey(ssrc) && null != inner.find(ssrc))
            {
                model.put(ssrc, inner.find(ssrc));
            }
            assertEquals(model.size(), context.streamCount(), name);
            verify(context, lookup, name, model.values().toArray(new SrtpStream[0]));
            for (final int query : pool)
            {
                assertSame(inner.find(query), context.stream(query), name + ": query " + query);
            }
        }
    }

    private static byte[] packet(final SrtpContext tx, final int ssrc, final int seq)
    {
        final byte[] p = SrtpTestSupport.rtp(seq, ssrc, 8, 0, false, 16);
        assertEquals(30, tx.protectRtp(p, 0, 20));
        return p;
    }

    /**
     * The context finds exactly {@code live}, each under its SSRC, and nothing at the other SSRCs of {@link #SSRCS}
     * or next to each live one; with one live stream it answers every one of these without calling the lookup
     * (checked when the lookup counts, that is when it is not null).
     */
    private static void verify(
        final SrtpContext context, final CountingLookup lookup, final String name, final SrtpStream... live)
    {
        assertEquals(live.length, context.streamCount(), name);
        final int findsBefore = null == lookup ? 0 : lookup.finds;
        for (final SrtpStream stream : live)
        {
            assertNotNull(stream, name);
            assertSame(stream, context.stream(stream.ssrc()), name + ": " + stream.ssrc());
            for (final int near : new int[] {stream.ssrc() - 1, stream.ssrc() + 1, ~stream.ssrc()})
            {
                assertSame(member(live, near), context.stream(near), name + ": query " + near);
            }
        }
        for (final int query : SSRCS)
        {
            assertSame(member(live, query), context.stream(query), name + ": query " + query);
        }
        if (null != lookup && 1 == live.length)
        {
            assertEquals(findsBefore, lookup.finds, name + ": one stream, yet the context asked the lookup");
        }
    }

    private static SrtpStream member(final SrtpStream[] live, final int ssrc)
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
