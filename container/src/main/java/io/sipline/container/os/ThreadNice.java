package io.sipline.container.os;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Lowers the CPU priority of the calling thread: Linux's nice value, which is per thread (setpriority(2) with
 * {@code PRIO_PROCESS} and who 0 names the calling thread there, not the process). The web engine's threads call it
 * when they start, so that on a busy machine a shard that has a SIP message to handle gets the core before an HTTP
 * request does (CFS weights: nice 10 gets about a tenth of the CPU of nice 0 when both want it), and HTTP still runs
 * on every cycle the shards leave.
 *
 * <p>Threading: any thread, for itself. Nothing here runs on a shard. On another OS, or without native access, it
 * does nothing and says so by its result.
 */
public final class ThreadNice
{
    /** The nice value of the web engine's threads. */
    public static final int HTTP = 10;

    private static final int PRIO_PROCESS = 0;
    private static final MethodHandle SETPRIORITY = load();

    private ThreadNice()
    {
    }

    /**
     * Sets the calling thread's nice value.
     *
     * @param nice from -20 to 19; raising it needs no privilege.
     * @return whether it was set (false on another OS, without native access, or when the call failed).
     */
    public static boolean setForCurrentThread(final int nice)
    {
        if (null == SETPRIORITY)
        {
            return false;
        }
        try
        {
            return 0 == (int)SETPRIORITY.invokeExact(PRIO_PROCESS, 0, nice);
        }
        catch (final Throwable t)
        {
            return false;
        }
    }

    /** {@link Linker#downcallHandle} is restricted: allowed by {@code --enable-native-access}, else null here. */
    @SuppressWarnings("restricted")
    private static MethodHandle load()
    {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux"))
        {
            return null;
        }
        try
        {
            final Linker linker = Linker.nativeLinker();
            return linker.downcallHandle(linker.defaultLookup().find("setpriority").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT));
        }
        catch (final RuntimeException | LinkageError e)
        {
            return null; // no native access, or no such symbol
        }
    }
}
