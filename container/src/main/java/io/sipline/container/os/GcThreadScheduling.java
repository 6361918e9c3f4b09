package io.sipline.container.os;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;

/**
 * How the JVM's concurrent ZGC threads are scheduled beside the shard event loops: {@code -Dsipline.gc.threads=idle}
 * (the {@code zgc} profile sets it) puts them under Linux's {@code SCHED_IDLE} policy, {@code normal} (the default)
 * leaves them as the JVM made them.
 *
 * <p>Why: ZGC marks and relocates concurrently, with one worker on a 2-core machine, for up to seconds per cycle.
 * Under the normal policy that worker takes its fair share of a core from the shards for the whole cycle, and the
 * calls of those seconds wait for a core. Under {@code SCHED_IDLE} (sched(7)) a woken shard preempts the worker at
 * once and the worker runs on the time nobody else wants. Every cycle is watched: an allocation stall puts the
 * threads back under the normal policy for good ({@link #onCycle}). Only ZGC, whose pauses are run by the VM thread,
 * not by these workers; other collectors are left alone, and so is every OS but Linux (it says so).
 *
 * <p>Threading: {@link #start} runs once on the main thread; the notification listener runs on the JVM's
 * notification thread; both go through the synchronized {@link #apply}/{@link #restore}. Neither runs on a shard.
 * Allocation: a few objects per GC cycle (the scan of {@code /proc/self/task}), none on the shards.
 */
public final class GcThreadScheduling
{
    /** The system property that chooses the policy. */
    public static final String PROPERTY = "sipline.gc.threads";
    /** {@code SCHED_OTHER} and {@code SCHED_IDLE} of {@code <sched.h>} (Linux). */
    static final int SCHED_OTHER = 0;
    static final int SCHED_IDLE = 5;
    /** {@code EPERM}. */
    static final int EPERM = 1;
    /** The GC cause of a ZGC cycle an allocation stall started (HotSpot's {@code GCCause::_z_allocation_stall}). */
    static final String ALLOCATION_STALL = "Allocation Stall";

    /** The policies the property names. */
    public enum Mode
    {
        NORMAL, IDLE
    }

    private static final Native NATIVE = Native.load();

    private final Predicate<String> threads;
    private final PrintWriter err;
    private boolean restored;

    GcThreadScheduling(final Predicate<String> threads, final PrintWriter err)
    {
        this.threads = threads;
        this.err = err;
    }

    /**
     * For {@code mode}, or when it is null for {@value #PROPERTY}: with {@code idle}, puts ZGC's concurrent threads
     * under {@code SCHED_IDLE} and watches the cycles ({@link #onCycle}). One line on {@code out} says what was
     * done, or on {@code err} why nothing was. A property other than {@code idle} or {@code normal} is refused with
     * {@link IllegalArgumentException}.
     *
     * @return the policy in force, or null when none is asked for or it cannot be had here.
     */
    public static GcThreadScheduling start(final Mode mode, final PrintWriter out, final PrintWriter err)
    {
        if (Mode.IDLE != (null == mode ? parse(System.getProperty(PROPERTY)) : mode))
        {
            return null;
        }
        final List<String> collectors = new ArrayList<>();
        for (final GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans())
        {
            collectors.add(bean.getName());
        }
        if (collectors.stream().noneMatch(name -> name.startsWith("ZGC")))
        {
            err.println("sipline: -D" + PROPERTY + "=idle applies to ZGC's concurrent threads only; this JVM runs "
                + String.join(", ", collectors) + ": its GC threads are left as they are");
            return null;
        }
        if (null == NATIVE)
        {
            err.println("sipline: -D" + PROPERTY + "=idle needs Linux and native access (sched_setscheduler): "
                + "the GC threads are left as they are");
            return null;
        }
        final GcThreadScheduling scheduling = new GcThreadScheduling(GcThreadScheduling::isZgcConcurrentThread, err);
        final Result result;
        try
        {
            result = scheduling.apply();
        }
        catch (final IllegalStateException e)
        {
            err.println("sipline: -D" + PROPERTY + "=idle: " + e.getMessage()
                + ": the GC threads are left as they are");
            return null;
        }
        if (!result.failed().isEmpty())
        {
            err.println("sipline: -D" + PROPERTY + "=idle: SCHED_IDLE refused for " + result.failed());
        }
        if (result.changed().isEmpty())
        {
            if (result.failed().isEmpty())
            {
                err.println("sipline: -D" + PROPERTY + "=idle: no ZGC thread in /proc/self/task: nothing changed");
            }
            return null;
        }
        out.println("sipline: GC threads " + result.changed() + " run under SCHED_IDLE (-D" + PROPERTY + "=idle)");
        scheduling.watchCycles();
        return scheduling;
    }

    /** Whether {@code name} (a thread's {@code comm}, 15 characters at most) is one of ZGC's concurrent threads. */
    public static boolean isZgcConcurrentThread(final String name)
    {
        return name.startsWith("ZWorker") || name.startsWith("ZDriver") || "ZDirector".equals(name);
    }

    /** {@code idle} or {@code normal} (any case, surrounding blanks ignored); null or empty is {@code normal}. */
    public static Mode parse(final String value)
    {
        if (null == value || value.isBlank())
        {
            return Mode.NORMAL;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT))
        {
            case "idle" -> Mode.IDLE;
            case "normal" -> Mode.NORMAL;
            default -> throw new IllegalArgumentException("-D" + PROPERTY + "=" + value
                + ": expected idle (ZGC's concurrent threads under SCHED_IDLE) or normal (as the JVM made them)");
        };
    }

    /** What a pass over the threads did: the names it changed, and the names the kernel refused (with errno). */
    record Result(List<String> changed, List<String> failed)
    {
    }

    /** Puts every matching thread not yet under {@code SCHED_IDLE} under it; none once {@link #restore}d. */
    synchronized Result apply()
    {
        return restored ? new Result(List.of(), List.of()) : set(SCHED_IDLE);
    }

    /** Puts every matching thread back under {@code SCHED_OTHER} (nice unchanged), for good. */
    synchronized Result restore()
    {
        restored = true;
        return set(SCHED_OTHER);
    }

    /** Whether an allocation stall has put the threads back under the normal policy (or tried to). */
    public synchronized boolean isRestored()
    {
        return restored;
    }

    private Result set(final int policy)
    {
        final List<String> changed = new ArrayList<>();
        final List<String> failed = new ArrayList<>();
        for (final Task task : tasks(threads))
        {
            final int now = NATIVE.policy(task.tid());
            if (now < 0 || now == policy)
            {
                continue; // ended since the listing, or already so
            }
            final int errno = NATIVE.setPolicy(task.tid(), policy);
            if (0 == errno)
            {
                changed.add(task.name());
            }
            else
            {
                failed.add(task.name() + " (errno " + errno + (EPERM == errno ? ", EPERM" : "") + ")");
            }
        }
        return new Result(changed, failed);
    }

    /** After every GC cycle: back to normal if an allocation stall started it, else pick up new workers. */
    private void watchCycles()
    {
        final NotificationListener listener = (notification, handback) ->
        {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType()))
            {
                return;
            }
            final GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData)notification.getUserData());
            onCycle(info.getGcCause());
        };
        for (final GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans())
        {
            if (bean.getName().endsWith("Cycles") && bean instanceof NotificationEmitter emitter)
            {
                emitter.addNotificationListener(listener, null, null);
            }
        }
    }

    /**
     * One GC cycle ended, started for {@code cause}. The risk of {@code SCHED_IDLE} is a collector that cannot keep
     * up: if the box stays busy for longer than the heap's reserve lasts, ZGC stalls the allocating threads (an
     * "Allocation Stall"), which would then wait for a worker that gets no core. So a cycle started by an allocation
     * stall puts the threads back under the normal policy for good and says so on standard error. Leaving
     * {@code SCHED_IDLE} needs {@code CAP_SYS_NICE} or an {@code RLIMIT_NICE} of 20 ({@code ulimit -e 20}); without
     * either the kernel refuses, and the message says that too. Other cycles re-apply the policy, because the JVM
     * starts further workers on demand.
     */
    void onCycle(final String cause)
    {
        try
        {
            afterCycle(cause);
        }
        catch (final RuntimeException e) // never out of the JVM's notification thread
        {
            err.println("sipline: GC thread scheduling after a cycle (" + cause + "): " + e);
        }
    }

    private void afterCycle(final String cause)
    {
        if (ALLOCATION_STALL.equals(cause))
        {
            // Under the monitor until the line is out: isRestored() turns true only once it has been said (a
            // process that ends as soon as it sees the restore would otherwise lose the line).
            synchronized (this)
            {
                if (restored)
                {
                    return;
                }
                final Result result = restore();
                err.println("sipline: an allocation stall started a GC cycle: the GC threads go back to the normal "
                    + "scheduling policy" + (result.failed().isEmpty() ? " (" + result.changed() + ")"
                    : "; the kernel refused it for " + result.failed() + ": it needs CAP_SYS_NICE or an "
                        + "RLIMIT_NICE of 20 (ulimit -e 20); or start with -D" + PROPERTY + "=normal"));
            }
            return;
        }
        final Result result = apply();
        if (!result.failed().isEmpty())
        {
            err.println("sipline: -D" + PROPERTY + "=idle: SCHED_IDLE refused for " + result.failed());
        }
    }

    /** A thread of this process: its id and its name. */
    record Task(int tid, String name)
    {
    }

    /** The threads of this process whose name {@code wanted} accepts ({@code /proc/self/task/<tid>/comm}). */
    static List<Task> tasks(final Predicate<String> wanted)
    {
        final List<Task> found = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Path.of("/proc/self/task")))
        {
            for (final Path task : dir)
            {
                final String name;
                try
                {
                    name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip();
                }
                catch (final IOException e)
                {
                    continue; // the thread ended between the listing and the read
                }
                if (wanted.test(name))
                {
                    found.add(new Task(Integer.parseInt(task.getFileName().toString()), name));
                }
            }
        }
        catch (final IOException e)
        {
            throw new IllegalStateException("cannot list /proc/self/task: " + e.getMessage(), e);
        }
        return found;
    }

    /** The scheduling policy of thread {@code tid} ({@code sched_getscheduler}), or -1. */
    static int policy(final int tid)
    {
        return null == NATIVE ? -1 : NATIVE.policy(tid);
    }

    /** Sets thread {@code tid}'s policy (priority 0): 0, or the errno of the refusal. */
    static int setPolicy(final int tid, final int policy)
    {
        return null == NATIVE ? -1 : NATIVE.setPolicy(tid, policy);
    }

    /** True where the libc calls can be made. */
    static boolean available()
    {
        return null != NATIVE;
    }

    /**
     * {@code int sched_setscheduler(pid_t, int, const struct sched_param *)} and {@code int sched_getscheduler(pid_t)}
     * from libc through the {@link Linker}, with {@code errno} captured; a {@code pid} of a thread id applies to that
     * thread alone.
     */
    private record Native(MethodHandle set, MethodHandle get, VarHandle errno, MemoryLayout state)
    {
        /** {@link Linker#downcallHandle} is restricted: allowed by {@code --enable-native-access}, else null here. */
        @SuppressWarnings("restricted")
        static Native load()
        {
            final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            if (!os.startsWith("linux"))
            {
                return null;
            }
            try
            {
                final Linker linker = Linker.nativeLinker();
                final SymbolLookup libc = linker.defaultLookup();
                final Linker.Option capture = Linker.Option.captureCallState("errno");
                final MemoryLayout state = Linker.Option.captureStateLayout();
                final MethodHandle set = linker.downcallHandle(libc.find("sched_setscheduler").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.ADDRESS), capture);
                final MethodHandle get = linker.downcallHandle(libc.find("sched_getscheduler").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
                final VarHandle errno = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                return new Native(set, get, errno, state);
            }
            catch (final RuntimeException | LinkageError e)
            {
                return null; // no native access, or no such symbol
            }
        }

        int policy(final int tid)
        {
            try
            {
                return (int)get.invokeExact(tid);
            }
            catch (final Throwable t)
            {
                throw new IllegalStateException("sched_getscheduler(" + tid + ")", t);
            }
        }

        int setPolicy(final int tid, final int policy)
        {
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment callState = arena.allocate(state);
                final MemorySegment param = arena.allocate(ValueLayout.JAVA_INT); // struct sched_param { 0 }
                final int rc = (int)set.invokeExact(callState, tid, policy, param);
                return 0 == rc ? 0 : (int)errno.get(callState, 0L);
            }
            catch (final Throwable t)
            {
                throw new IllegalStateException("sched_setscheduler(" + tid + ", " + policy + ")", t);
            }
        }
    }
}
