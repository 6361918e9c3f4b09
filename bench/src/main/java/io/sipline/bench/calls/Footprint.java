package io.sipline.bench.calls;

/**
 * A memory figure of one system running one application ({@code app}, as in {@link Series}): {@code allocated} (heap
 * growth over {@code calls} calls under Epsilon, no TLABs) or {@code retained} (live heap growth, after a full GC,
 * with {@code calls} calls established and held). Immutable.
 */
public record Footprint(SystemUnderTest system, String app, String kind, String profile, long calls, long bytes)
{
    /** Bytes per call, or NaN when no call counted. */
    public double perCall()
    {
        return 0 == calls ? Double.NaN : bytes / (double)calls;
    }
}
