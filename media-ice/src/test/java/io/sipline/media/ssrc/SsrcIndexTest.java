package io.sipline.media.ssrc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SsrcIndexTest
{
    private static final int MAX_N = 1000;
    private static final int[] SPECIAL = {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 1, -2, Integer.MIN_VALUE + 1};

    /** A stream stand-in: identity is what the index returns. */
    private record Stream(int ssrc)
    {
    }

    @Test
    void shouldRunTheVectorPathInTheseTests()
    {
        // The surefire argLine adds jdk.incubator.vector; without it the vector tests below would test nothing.
        assertTrue(SsrcIndex.VECTOR_SUPPORTED);
        assertEquals(0, new SsrcIndex<Stream>(1, SsrcIndex.Strategy.VECTOR).capacity() % SsrcIndex.PAD);
        assertEquals(0, SsrcIndex.PAD % SsrcVectorScan.LANES);
        assertEquals("vector, " + SsrcVectorScan.LANES + " int lanes", SsrcIndex.autoScan());
    }

    @ParameterizedTest
    @EnumSource(SsrcIndex.Strategy.class)
    void shouldHitEveryMemberAndMissNonMembersAtEveryN(final SsrcIndex.Strategy strategy)
    {
        hitsAndMissesAtEveryN(new SsrcIndex<>(SsrcIndex.DEFAULT_CAPACITY, strategy));
    }

    @Test
    void shouldHitEveryMemberAndMissNonMembersAtEveryNWithoutSimd()
    {
        hitsAndMissesAtEveryN(new SsrcIndex<>(SsrcIndex.DEFAULT_CAPACITY, SsrcIndex.Strategy.AUTO, false));
    }

    private static void hitsAndMissesAtEveryN(final SsrcIndex<Stream> index)
    {
        final SsrcIndex.Strategy strategy = index.strategy();
        final Random random = new Random(7);
        final Map<Integer, Stream> oracle = new HashMap<>();
        final int[] members = new int[MAX_N];
        for (int n = 1; n <= MAX_N; n++)
        {
            final int ssrc = freshSsrc(random, oracle);
            final Stream stream = new Stream(ssrc);
            assertTrue(index.add(ssrc, stream));
            oracle.put(ssrc, stream);
            members[n - 1] = ssrc;
            assertEquals(n, index.size());

            for (int i = 0; i < n; i++)
            {
                assertSame(oracle.get(members[i]), index.get(members[i]), () -> strategy + " hit at N=" + index.size());
                // The entry point of a caller with its own single-entry path answers the same at every N.
                assertSame(oracle.get(members[i]), index.getBeyondOne(members[i]),
                    () -> strategy + " hit beyond one at N=" + index.size());
            }
            for (int i = 0; i < 32; i++)
            {
                final int miss = freshSsrc(random, oracle);
                assertNull(index.get(miss), strategy + " miss at N=" + n);
                assertNull(index.getBeyondOne(miss), strategy + " miss beyond one at N=" + n);
            }
            for (final int special : SPECIAL)
            {
                assertSame(oracle.get(special), index.get(special));
                assertSame(oracle.get(special), index.getBeyondOne(special));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SsrcIndex.Strategy.class)
    void shouldHandleSpecialSsrcValues(final SsrcIndex.Strategy strategy)
    {
        for (final int first : SPECIAL)
        {
            final SsrcIndex<Stream> index = new SsrcIndex<>(4, strategy);
            assertNull(index.get(first));
            final Stream stream = new Stream(first);
            assertTrue(index.add(first, stream));
            assertSame(stream, index.get(first));
            for (final int other : SPECIAL)
            {
                if (other != first)
                {
                    assertNull(index.get(other), () -> strategy + " " + first + " present, " + other + " absent");
                }
            }
            final Map<Integer, Stream> all = new HashMap<>();
            for (final int ssrc : SPECIAL)
            {
                all.put(ssrc, ssrc == first ? stream : new Stream(ssrc));
                if (ssrc != first)
                {
                    assertTrue(index.add(ssrc, all.get(ssrc)));
                }
            }
            for (final int ssrc : SPECIAL)
            {
                assertSame(all.get(ssrc), index.get(ssrc));
            }
            assertSame(stream, index.remove(first));
            assertNull(index.get(first));
            assertNull(index.remove(first));
            for (final int ssrc : SPECIAL)
            {
                if (ssrc != first)
                {
                    assertSame(all.get(ssrc), index.get(ssrc));
                }
            }
        }
    }

    /**
     * The two-entry path of {@link SsrcIndex.Strategy#AUTO} (with and without SIMD): every ordered pair of special
     * SSRCs, each entry found through the branch-free stream choice, every other special value missed (the template
     * returned by {@code getOrTemplate}), and the pair fields following removes and re-adds in either order.
     */
    @Test
    void shouldAnswerEveryPairOfSpecialSsrcsThroughTheTwoEntryPath()
    {
        final Stream template = new Stream(42);
        for (final boolean simd : new boolean[] {true, false})
        {
            for (final int a : SPECIAL)
            {
                for (final int b : SPECIAL)
                {
                    if (a == b)
                    {
                        continue;
                    }
                    final SsrcIndex<Stream> index = new SsrcIndex<>(4, SsrcIndex.Strategy.AUTO, simd);
                    index.template(template);
                    final Stream sa = new Stream(a);
                    final Stream sb = new Stream(b);
                    assertTrue(index.add(a, sa));
                    assertTrue(index.add(b, sb));
                    final String where = "simd " + simd + ", pair " + a + ", " + b;
                    assertPair(index, a, sa, b, sb, template, where);
                    assertSame(sa, index.remove(a));
                    assertSame(sb, index.get(b), where);
                    assertSame(template, index.getOrTemplate(a), where);
                    assertTrue(index.add(a, sa));
                    assertPair(index, b, sb, a, sa, template, where + " (re-added)");
                    assertSame(sb, index.remove(b));
                    assertSame(sa, index.get(a), where);
                    assertNull(index.get(b), where);
                }
            }
        }
    }

    private static void assertPair(final SsrcIndex<Stream> index, final int a, final Stream sa, final int b,
        final Stream sb, final Stream template, final String where)
    {
        assertEquals(2, index.size(), where);
        assertSame(sa, index.get(a), where);
        assertSame(sb, index.get(b), where);
        assertSame(sa, index.ssrcAt(0) == a ? index.streamAt(0) : index.streamAt(1), where);
        for (final int other : SPECIAL)
        {
            if (other != a && other != b)
            {
                assertNull(index.get(other), where + ", other " + other);
                assertSame(template, index.getOrTemplate(other), where + ", other " + other);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SsrcIndex.Strategy.class)
    void shouldMissSsrcZeroInATableOfEmptySlots(final SsrcIndex.Strategy strategy)
    {
        // The table's empty marker is key 0 with a null value: a real SSRC 0 must be found, an absent one missed.
        final SsrcIndex<Stream> index = new SsrcIndex<>(256, strategy);
        for (int ssrc = 1; ssrc <= 200; ssrc++)
        {
            index.add(ssrc, new Stream(ssrc));
            assertNull(index.get(0));
        }
        final Stream zero = new Stream(0);
        index.add(0, zero);
        assertSame(zero, index.get(0));
        assertSame(zero, index.remove(0));
        assertNull(index.get(0));
        for (int ssrc = 1; ssrc <= 200; ssrc++)
        {
            assertEquals(ssrc, index.get(ssrc).ssrc());
        }
    }

    @Test
    void shouldFindKeysInProbeRunsLongerThanTheVectorWindowAndAcrossTheTableEnd()
    {
        // Capacity 64 gives a table of 256 slots, home slot = (ssrc * 0x9E3779B9) >>> 24. Forty SSRCs that share the
        // home slot 250 make one run that wraps past slot 255 and is longer than any vector window.
        final int[] colliding = new int[48];
        int found = 0;
        for (int candidate = 1; found < colliding.length; candidate++)
        {
            if (((candidate * 0x9E3779B9) >>> 24) == 250)
            {
                colliding[found++] = candidate;
            }
        }
        final List<SsrcIndex<Stream>> indexes = List.of(
            new SsrcIndex<>(64, SsrcIndex.Strategy.TABLE), new SsrcIndex<>(64, SsrcIndex.Strategy.TABLE, false));
        for (final SsrcIndex<Stream> index : indexes)
        {
            assertEquals(64, index.capacity());
            for (int i = 0; i < 40; i++)
            {
                assertTrue(index.add(colliding[i], new Stream(colliding[i])));
            }
            index.add(0, new Stream(0));
            for (int i = 0; i < 40; i++)
            {
                assertEquals(colliding[i], index.get(colliding[i]).ssrc());
            }
            for (int i = 40; i < colliding.length; i++)
            {
                assertNull(index.get(colliding[i]));
            }
            for (int i = 0; i < 40; i += 3)
            {
                assertEquals(colliding[i], index.remove(colliding[i]).ssrc());
            }
            for (int i = 0; i < 40; i++)
            {
                if (i % 3 == 0)
                {
                    assertNull(index.get(colliding[i]));
                }
                else
                {
                    assertEquals(colliding[i], index.get(colliding[i]).ssrc());
                }
            }
            assertEquals(0, index.get(0).ssrc());
            assertEquals(SsrcIndex.Layout.TABLE, index.layout());
        }
    }

    @ParameterizedTest
    @EnumSource(SsrcIndex.Strategy.class)
    void shouldRefuseDuplicates(final SsrcIndex.Strategy strategy)
    {
        final SsrcIndex<Stream> index = new SsrcIndex<>(SsrcIndex.DEFAULT_CAPACITY, strategy);
        for (int n = 0; n < 100; n++)
        {
            final int ssrc = n * 0x01000193;
            final Stream stream = new Stream(ssrc);
            assertTrue(index.add(ssrc, stream));
            assertFalse(index.add(ssrc, new Stream(ssrc)));
            assertSame(stream, index.get(ssrc));
            assertEquals(n + 1, index.size());
        }
        assertThrows(NullPointerException.class, () -> index.add(12345, null));
    }

    /**
     * The one-step paths of 4 and 8 lanes (a 128- and a 256-bit vector where the preferred one is wider) and the full
     * one, across their edges: shrinking one entry at a time from the end leaves every removed SSRC behind as a stale
     * lane, inside the narrower vector's width, which must never be reported; every remaining entry is found.
     */
    @Test
    void shouldFindEveryEntryAndNoStaleLaneAcrossTheStepWidths()
    {
        final int n = Math.min(SsrcIndex.TABLE_UP_VECTOR, 17);
        final SsrcIndex<Stream> index = new SsrcIndex<>(n);
        for (int i = 0; i < n; i++)
        {
            index.add(-1 - i, new Stream(-1 - i)); // negative SSRCs: the top bit set, as in half of real traffic
        }
        for (int size = n; size > 0; size--)
        {
            for (int i = 0; i < n; i++)
            {
                final Stream s = index.get(-1 - i);
                if (i < size)
                {
                    assertEquals(-1 - i, s.ssrc(), "size " + size + ", entry " + i);
                }
                else
                {
                    assertNull(s, "size " + size + ": a stale lane " + i + " was reported");
                }
            }
            assertNull(index.get(0));
            assertNull(index.get(-1 - n));
            assertEquals(-size, index.remove(-size).ssrc());
        }
        assertTrue(index.isEmpty());
    }

    @ParameterizedTest
    @EnumSource(SsrcIndex.Strategy.class)
    void shouldMissAfterRemoveAndKeepTheArraysDense(final SsrcIndex.Strategy strategy)
    {
        final SsrcIndex<Stream> index = new SsrcIndex<>(SsrcIndex.DEFAULT_CAPACITY, strategy);
        final int n = 3 * SsrcIndex.PAD + 1;
        for (int ssrc = 1; ssrc <= n; ssrc++)
        {
            index.add(ssrc, new Stream(ssrc));
        }
        // Remove the last first: its SSRC stays behind as a stale lane past size, which a scan must not report.
        assertEquals(n, index.remove(n).ssrc());
        assertNull(index.get(n));
        // Remove from the front: the last entry moves into the hole.
        assertEquals(1, index.remove(1).ssrc());
        assertNull(index.get(1));
        assertEquals(n - 1, index.ssrcAt(0));
        assertEquals(n - 1, index.streamAt(0).ssrc());
        assertNull(index.remove(1));
        final Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < index.size(); i++)
        {
            assertEquals(index.ssrcAt(i), index.streamAt(i).ssrc());
            seen.add(index.ssrcAt(i));
        }
        assertEquals(n - 2, seen.size());
        for (int ssrc = 2; ssrc < n; ssrc++)
        {
            assertEquals(ssrc, index.get(ssrc).ssrc());
        }
        while (!index.isEmpty())
        {
            final int ssrc = index.ssrcAt(index.size() / 2);
            assertEquals(ssrc, index.remove(ssrc).ssrc());
            assertNull(index.get(ssrc));
        }
        for (int ssrc = 0; ssrc <= n + 1; ssrc++)
        {
            assertNull(index.get(ssrc));
        }
        assertThrows(IndexOutOfBoundsException.class, () -> index.ssrcAt(0));
    }

    @ParameterizedTest
    @EnumSource(SsrcIndex.Strategy.class)
    void shouldReturnTheTemplateOnlyForUnknownSsrcs(final SsrcIndex.Strategy strategy)
    {
        final SsrcIndex<Stream> index = new SsrcIndex<>(SsrcIndex.DEFAULT_CAPACITY, strategy);
        assertNull(index.getOrTemplate(42));
        final Stream template = new Stream(-1);
        assertSame(index, index.template(template));
        assertSame(template, index.template());

        for (int ssrc = 1; ssrc <= 100; ssrc++)
        {
            // What the SRTP receive path does: unknown SSRC -> the template; on successful authentication it
            // creates the concrete stream from the template and adds it; later packets find the concrete stream.
            final Stream found = index.getOrTemplate(ssrc);
            assertSame(template, found);
            assertNull(index.get(ssrc));
            assertFalse(index.contains(ssrc));
            final Stream concrete = new Stream(ssrc);
            assertTrue(index.add(ssrc, concrete));
            assertSame(concrete, index.getOrTemplate(ssrc));
            assertTrue(index.contains(ssrc));
        }
        assertEquals(100, index.size());
        assertSame(template, index.getOrTemplate(0));
        assertSame(template, index.getOrTemplate(-1));
        index.remove(50);
        assertSame(template, index.getOrTemplate(50));
        index.template(null);
        assertNull(index.getOrTemplate(50));
        index.clear();
        assertTrue(index.isEmpty());
        assertNull(index.getOrTemplate(1));
    }

    @Test
    void shouldSwitchLayoutUpAndDownAcrossTheThreshold()
    {
        switchLayoutUpAndDown(new SsrcIndex<>(), SsrcIndex.TABLE_UP_VECTOR);
    }

    @Test
    void shouldSwitchLayoutUpAndDownAcrossTheThresholdWithoutSimd()
    {
        switchLayoutUpAndDown(new SsrcIndex<>(0, SsrcIndex.Strategy.AUTO, false), SsrcIndex.TABLE_UP_SCALAR);
    }

    private static void switchLayoutUpAndDown(final SsrcIndex<Stream> index, final int up)
    {
        final int down = Math.max(1, up / 2);
        assertEquals(SsrcIndex.Layout.ARRAY, index.layout());
        final int base = 0x7FFFFFF0; // crosses Integer.MAX_VALUE into negative SSRCs
        for (int round = 0; round < 3; round++)
        {
            for (int i = index.size(); i < up; i++)
            {
                index.add(base + i, new Stream(base + i));
            }
            assertEquals(SsrcIndex.Layout.ARRAY, index.layout());
            assertAll(index, base, up);

            index.add(base + up, new Stream(base + up));
            assertEquals(SsrcIndex.Layout.TABLE, index.layout());
            assertAll(index, base, up + 1);
            assertNull(index.get(base + up + 1));

            // Hysteresis: stays a table until the size falls to half the threshold.
            for (int i = up; i >= down; i--)
            {
                assertEquals(base + i, index.remove(base + i).ssrc());
                assertEquals(i > down ? SsrcIndex.Layout.TABLE : SsrcIndex.Layout.ARRAY, index.layout());
                assertNull(index.get(base + i));
                assertAll(index, base, i);
            }
            for (int i = down; i <= up; i++)
            {
                assertNull(index.get(base + i));
            }
        }
        for (int i = down - 1; i >= 0; i--)
        {
            index.remove(base + i);
            assertAll(index, base, i);
        }
        assertTrue(index.isEmpty());
    }

    @Test
    void shouldAgreeBetweenVectorScalarAndTableOnRandomSets()
    {
        final int[] sizes = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257, 999};
        for (long seed = 1; seed <= 8; seed++)
        {
            final Random random = new Random(seed);
            for (final int n : sizes)
            {
                final List<SsrcIndex<Stream>> indexes = allStrategies(random.nextInt(64));
                final Map<Integer, Stream> oracle = new HashMap<>();
                final List<Integer> members = new ArrayList<>();
                for (int i = 0; i < n; i++)
                {
                    final int ssrc = seed % 2 == 0 ? freshSsrc(random, oracle) : random.nextInt(4 * n + 1) - 2 * n;
                    if (!oracle.containsKey(ssrc))
                    {
                        final Stream stream = new Stream(ssrc);
                        oracle.put(ssrc, stream);
                        members.add(ssrc);
                        for (final SsrcIndex<Stream> index : indexes)
                        {
                            assertTrue(index.add(ssrc, stream));
                        }
                    }
                }
                for (int q = 0; q < 2000; q++)
                {
                    final int ssrc = random.nextBoolean() && !members.isEmpty() ?
                        members.get(random.nextInt(members.size())) : random.nextInt();
                    for (final SsrcIndex<Stream> index : indexes)
                    {
                        assertSame(oracle.get(ssrc), index.get(ssrc), () -> "seed " + index + " ssrc " + ssrc);
                    }
                }
            }
        }
    }

    @Test
    void shouldAgreeWithAMapUnderRandomAddsAndRemoves()
    {
        for (long seed = 11; seed <= 14; seed++)
        {
            final Random random = new Random(seed);
            final List<SsrcIndex<Stream>> indexes = allStrategies(1);
            final Map<Integer, Stream> oracle = new HashMap<>();
            final List<Integer> members = new ArrayList<>();
            // A small SSRC range makes collisions in the table, probe runs that wrap, and many re-adds.
            final int range = 600;
            for (int step = 0; step < 60_000; step++)
            {
                final int ssrc = random.nextInt(range) - range / 2;
                // Drift the size up and down through every layout threshold.
                final boolean grow = (step / 5_000) % 2 == 0 ? random.nextInt(10) < 7 : random.nextInt(10) < 3;
                if (grow)
                {
                    final Stream stream = new Stream(ssrc);
                    final boolean fresh = !oracle.containsKey(ssrc);
                    if (fresh)
                    {
                        oracle.put(ssrc, stream);
                        members.add(ssrc);
                    }
                    for (final SsrcIndex<Stream> index : indexes)
                    {
                        assertEquals(fresh, index.add(ssrc, stream));
                    }
                }
                else
                {
                    final Stream expected = oracle.remove(ssrc);
                    if (null != expected)
                    {
                        members.remove(Integer.valueOf(ssrc));
                    }
                    for (final SsrcIndex<Stream> index : indexes)
                    {
                        assertSame(expected, index.remove(ssrc));
                    }
                }
                final int probe = random.nextInt(range + 10) - range / 2 - 5;
                for (final SsrcIndex<Stream> index : indexes)
                {
                    assertEquals(oracle.size(), index.size());
                    assertSame(oracle.get(probe), index.get(probe), () -> "seed " + index + " ssrc " + probe);
                }
                if (step % 997 == 0)
                {
                    for (final SsrcIndex<Stream> index : indexes)
                    {
                        for (final int member : members)
                        {
                            assertSame(oracle.get(member), index.get(member));
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SsrcIndex.Strategy.class)
    void shouldGrowAndClearKeepingCapacity(final SsrcIndex.Strategy strategy)
    {
        final SsrcIndex<Stream> index = new SsrcIndex<>(0, strategy);
        assertEquals(SsrcIndex.PAD, index.capacity());
        for (int ssrc = 0; ssrc < 300; ssrc++)
        {
            index.add(~ssrc, new Stream(~ssrc));
        }
        final int capacity = index.capacity();
        assertTrue(capacity >= 300);
        index.clear();
        assertEquals(0, index.size());
        assertEquals(capacity, index.capacity());
        for (int ssrc = 0; ssrc < 300; ssrc++)
        {
            assertNull(index.get(~ssrc));
        }
        for (int ssrc = 0; ssrc < 300; ssrc++)
        {
            assertTrue(index.add(ssrc, new Stream(ssrc)));
        }
        for (int ssrc = 0; ssrc < 300; ssrc++)
        {
            assertEquals(ssrc, index.get(ssrc).ssrc());
            assertNull(index.get(~ssrc));
        }
        assertEquals(capacity, index.capacity());
    }

    /** Every strategy, plus AUTO as on a machine without SIMD (one entry, scalar mask, then the table). */
    private static List<SsrcIndex<Stream>> allStrategies(final int capacity)
    {
        final List<SsrcIndex<Stream>> indexes = new ArrayList<>();
        for (final SsrcIndex.Strategy strategy : SsrcIndex.Strategy.values())
        {
            indexes.add(new SsrcIndex<>(capacity, strategy));
        }
        indexes.add(new SsrcIndex<>(capacity, SsrcIndex.Strategy.AUTO, false));
        return indexes;
    }

    private static void assertAll(final SsrcIndex<Stream> index, final int base, final int count)
    {
        assertEquals(count, index.size());
        for (int i = 0; i < count; i++)
        {
            assertEquals(base + i, index.get(base + i).ssrc());
        }
    }

    private static int freshSsrc(final Random random, final Map<Integer, Stream> taken)
    {
        while (true)
        {
            final int ssrc = random.nextInt();
            if (!taken.containsKey(ssrc))
            {
                return ssrc;
            }
        }
    }
}
