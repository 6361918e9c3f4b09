package io.sipline.bench.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sipline.bench.calls.ThreadTimes;

/** The timeline's columns of the server's threads: ms run per group in the second, then the shards' wait for a CPU. */
class ServerTimelineTest
{
    @Test
    void shouldWriteTheMillisecondsEachGroupRanAndTheShardsWaited()
    {
        final ThreadTimes before = times(0, 0);
        final Map<String, long[]> after = new LinkedHashMap<>();
        ThreadTimes.GROUPS.forEach(g -> after.put(g, new long[3]));
        after.put("shards", new long[] {250_400_000L, 12_900_000L, 900});
        after.put("JIT", new long[] {110_000_000L, 0, 30});
        after.put("GC", new long[] {9_999_999L, 0, 4});

        assertEquals(",250,0,110,9,0,12", ServerTimeline.threads(before, new ThreadTimes(after)),
            "shards, web, JIT, GC, other, then the shards' wait; whole ms");
        assertEquals(",0,0,0,0,0,0", ServerTimeline.threads(new ThreadTimes(after), before),
            "a thread that ended takes its time with it: never below 0");
    }

    private static ThreadTimes times(final long run, final long wait)
    {
        final Map<String, long[]> groups = new LinkedHashMap<>();
        ThreadTimes.GROUPS.forEach(g -> groups.put(g, new long[] {run, wait, 0}));
        return new ThreadTimes(groups);
    }
}
