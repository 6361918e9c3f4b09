package io.sipline.sip.collection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

/** {@link QuietSpells}: when a grown array shrinks, and to what size, trim by trim. */
class QuietSpellsTest
{
    private static final int QUARTER = 2;
    private static final int EIGHTH = 3;
    private static final int SPELL = 4;

    /** Trims {@code array} {@code n} times at {@code capacity} with {@code inUse} in use; returns the last answer. */
    private static int trims(final QuietSpells spells, final int array, final int n, final int capacity,
        final int inUse)
    {
        int answer = Integer.MIN_VALUE;
        for (int i = 0; i < n; i++)
        {
            answer = spells.trim(array, capacity, inUse, SPELL);
        }
        return answer;
    }

    @Test
    void shouldShrinkToFourTimesTheSpellsMostAfterEnoughQuietTrims()
    {
        final QuietSpells spells = new QuietSpells(1, QUARTER, 16);
        spells.use(0, 1024);
        assertEquals(QuietSpells.BUSY, spells.trim(0, 1024, 20, SPELL), "the burst's trim ends the spell");
        spells.use(0, 30); // the most of the quiet spell: 30 * 4 = 120, rounded up to 128
        assertEquals(QuietSpells.KEEP, trims(spells, 0, SPELL - 1, 1024, 10), "not quiet long enough yet");
        assertEquals(128, spells.trim(0, 1024, 10, SPELL));
        spells.restart(0, 10);
        assertEquals(0, spells.quietTrims(0));
        assertEquals(10, spells.peak(0));
    }

    @Test
    void shouldStartANewSpellWhenTheSpellsMostNeedsEverySlot()
    {
        final QuietSpells spells = new QuietSpells(1, QUARTER, 16);
        spells.use(0, 200); // a quarter of 1024 at most, but 200 * 4 rounds up to 1024: no smaller size fits it
        assertEquals(QuietSpells.KEEP, trims(spells, 0, SPELL, 1024, 5), "a full-peak spell shrinks nothing");
        assertEquals(0, spells.quietTrims(0), "it starts a new spell");
        assertEquals(5, spells.peak(0), "measured from the use after the burst, not the burst's tail");
        assertEquals(QuietSpells.KEEP, trims(spells, 0, SPELL - 1, 1024, 5));
        assertEquals(32, spells.trim(0, 1024, 5, SPELL), "the next spell sizes the array by what it holds now");
    }

    @Test
    void shouldStartAgainWhenABurstInterruptsTheSpell()
    {
        final QuietSpells spells = new QuietSpells(1, QUARTER, 16);
        assertEquals(QuietSpells.KEEP, trims(spells, 0, SPELL - 1, 1024, 10));
        spells.use(0, 257); // one above a quarter
        assertEquals(QuietSpells.BUSY, spells.trim(0, 1024, 40, SPELL));
        assertEquals(0, spells.quietTrims(0));
        assertEquals(40, spells.peak(0));
        assertEquals(QuietSpells.KEEP, trims(spells, 0, SPELL - 1, 1024, 40), "a whole new spell is needed");
        assertEquals(256, spells.trim(0, 1024, 40, SPELL), "sized by the new spell's most: 40 * 4 -> 256");
    }

    @Test
    void shouldCountAUseOfExactlyTheShareAsQuiet()
    {
        final QuietSpells spells = new QuietSpells(1, QUARTER, 16);
        spells.use(0, 64);
        assertEquals(QuietSpells.KEEP, trims(spells, 0, SPELL, 256, 64), "64 of 256 is quiet, and needs 256");
        spells.use(0, 65);
        assertEquals(QuietSpells.BUSY, spells.trim(0, 256, 65, SPELL));
    }

    @Test
    void shouldKeepTheLeastCapacity()
    {
        final QuietSpells spells = new QuietSpells(1, QUARTER, 64);
        assertEquals(64, trims(spells, 0, SPELL, 1024, 0), "an idle array goes back to its least size, not below");
        spells.restart(0, 0);
        assertEquals(QuietSpells.KEEP, trims(spells, 0, 10 * SPELL, 64, 0), "at its least size nothing happens");
        assertEquals(0, spells.quietTrims(0));
    }

    @Test
    void shouldEndTheSpellAtTheTrimAfterAGrowth()
    {
        final QuietSpells spells = new QuietSpells(1, QUARTER, 16);
        spells.use(0, 16);
        assertEquals(QuietSpells.KEEP, trims(spells, 0, SPELL - 1, 64, 16), "16 of 64: quiet");
        spells.use(0, 65); // the array was full and doubled to 128 in the middle of the spell
        assertEquals(QuietSpells.BUSY, spells.trim(0, 128, 3, SPELL), "a growth is never quiet");
        assertEquals(QuietSpells.KEEP, trims(spells, 0, SPELL - 1, 128, 3));
        assertEquals(16, spells.trim(0, 128, 3, SPELL), "what the new spell held");
    }

    @Test
    void shouldAnswerAgainAtEachTrimWhileTheOwnerCannotShrink()
    {
        final QuietSpells spells = new QuietSpells(1, QUARTER, 16);
        spells.use(0, 8);
        assertEquals(32, trims(spells, 0, SPELL, 512, 8));
        assertEquals(32, spells.trim(0, 512, 2, SPELL), "a slot in use up there: the spell goes on");
        spells.use(0, 12);
        assertEquals(64, spells.trim(0, 512, 12, SPELL), "and keeps the most it has seen");
        assertEquals(SPELL, spells.quietTrims(0), "the count stops at the spell's length");
    }

    @Test
    void shouldFollowEachArrayApartAndHonourTheShare()
    {
        final QuietSpells spells = new QuietSpells(2, EIGHTH, 16);
        spells.use(0, 40); // above an eighth of 256
        spells.use(1, 32); // an eighth of 256 exactly
        assertEquals(QuietSpells.BUSY, spells.trim(0, 256, 0, SPELL));
        assertEquals(128, trims(spells, 1, SPELL, 256, 0), "32 of 256 is quiet at an eighth: 32 * 4 -> 128");
        assertEquals(0, spells.quietTrims(0), "the other array's spell is its own");
    }

    @Test
    void shouldTreatASpellOfLessThanOneTrimAsOne()
    {
        final QuietSpells spells = new QuietSpells(1, QUARTER, 16);
        assertEquals(16, spells.trim(0, 256, 0, 0));
    }

    @Test
    void shouldRefuseBadArguments()
    {
        assertThrows(IllegalArgumentException.class, () -> new QuietSpells(0, QUARTER, 16));
        assertThrows(IllegalArgumentException.class, () -> new QuietSpells(1, 0, 16));
        assertThrows(IllegalArgumentException.class, () -> new QuietSpells(1, QUARTER, 0));
    }

    @Test
    void shouldAllocateNothingOnUseAndTrim()
    {
        final QuietSpells spells = new QuietSpells(4, QUARTER, 16);
        final Runnable rounds = () ->
        {
            for (int i = 0; i < 10_000; i++)
            {
                spells.use(i & 3, i & 63);
                spells.trim(i & 3, 1024, i & 15, SPELL);
            }
        };
        assertEquals(0, AllocationMeter.leastBytes(rounds, rounds, 5, 0));
    }
}
