package io.sipline.container.deploy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * Deploys what {@code --deploy} names and keeps watched folders in step with their contents: a {@code .war} file or
 * exploded application named directly is deployed once at {@link #start()}; any other directory is a folder whose
 * {@code .war}/{@code .sar} files and exploded applications (directories with a {@code WEB-INF}) are deployed,
 * redeployed when replaced and undeployed when deleted, while the other applications keep serving.
 * <p>
 * A file in a watched folder is deployed once it has stopped changing (the same size and modification time, of its
 * tree for an exploded directory, in two scans at least {@code quiet} apart, or already {@code quiet} old at
 * {@link #start()}; {@link #signatureOrNull}), so a WAR still being copied is never opened. A replaced file is
 * loaded first and the old version keeps serving until the new one has loaded, or for good when it cannot. Every
 * outcome is one line on the console ({@code sipline: deployed NAME ...} or {@code sipline: cannot deploy FILE...:
 * reason}), a failure once per version of the file.
 * <p>
 * Threading: {@link #start()} runs on the caller's thread; afterwards one platform thread named
 * {@value #THREAD_NAME} waits on a {@link WatchService} and rescans every {@code poll} interval. Every deployment
 * and listener call happens on that thread (or the closing one), never on a shard; nothing thrown by the deployer
 * or the listener ends it. {@link #applications()} may be read from any thread.
 */
public final class DeploymentWatcher implements AutoCloseable
{
    /** The name of the watching thread. */
    public static final String THREAD_NAME = "sipline-deploy-watcher";

    /** The default interval between rescans of the watched folders. */
    public static final Duration DEFAULT_POLL = Duration.ofMillis(500);

    /** The default time a file must keep the same size and modification time before it is deployed. */
    public static final Duration DEFAULT_QUIET = Duration.ofMillis(500);

    /** The bound on waiting for the watching thread to end at {@link #close()}. */
    private static final long JOIN_MILLIS = 10_000;

    private final List<Path> applicationPaths = new ArrayList<>();
    private final List<Path> folders = new ArrayList<>();
    private final ApplicationDeployer deployer;
    private final DeploymentListener listener;
    private final PrintWriter out;
    private final PrintWriter err;
    private final long pollMillis;
    private final long quietMillis;
    private final LongSupplier clock;
    private final Object lock = new Object();

    /** What is deployed, by source path; guarded by {@link #lock}. */
    private final Map<Path, Entry> deployed = new LinkedHashMap<>();
    /** Files that failed, with the signature they failed at; guarded by {@link #lock}. */
    private final Map<Path, Signature> failed = new HashMap<>();
    /** Files seen changing, with the signature and time first seen; guarded by {@link #lock}. */
    private final Map<Path, Pending> pending = new HashMap<>();
    /** Folders whose listing failed (reported once until they can be listed again); guarded by {@link #lock}. */
    private final Map<Path, String> unreadable = new HashMap<>();

    private volatile List<DeployedApplication> snapshot = List.of();
    private volatile boolean closed;
    private WatchService watchService;
    private Thread thread;

    private record Entry(DeployedApplication application, Signature signature)
    {
    }

    private record Pending(Signature signature, long firstSeenMillis)
    {
    }

    /**
     * Size and modification time of a file, or the file count, total size and newest modification time of a
     * directory tree.
     */
    record Signature(long files, long bytes, long newestMillis)
    {
    }

    /**
     * A watcher with the default poll interval and quiet time, on the wall clock.
     *
     * @param paths    what {@code --deploy} named: {@code .war} files, exploded applications and folders; each must
     *                 exist (the command line checked it).
     * @param deployer loads each application.
     * @param listener starts and stops each application (dispatch).
     * @param out      where the one line per deployed or undeployed application goes.
     * @param err      where the one line per failure goes.
     */
    public DeploymentWatcher(
        final List<Path> paths, final ApplicationDeployer deployer, final DeploymentListener listener,
        final PrintWriter out, final PrintWriter err)
    {
        this(paths, deployer, listener, out, err, DEFAULT_POLL, DEFAULT_QUIET, System::currentTimeMillis);
    }

    /**
     * @param poll  the interval between rescans of the watched folders.
     * @param quiet how long a file must keep the same signature before it is deployed.
     * @param clock wall-clock milliseconds (the same clock as file modification times).
     * @see #DeploymentWatcher(List, ApplicationDeployer, DeploymentListener, PrintWriter, PrintWriter)
     */
    public DeploymentWatcher(
        final List<Path> paths, final ApplicationDeployer deployer, final DeploymentListener listener,
        final PrintWriter out, final PrintWriter err, final Duration poll, final Duration quiet,
        final LongSupplier clock)
    {
        for (final Path p : paths)
        {
            final Path path = p.toAbsolutePath().normalize();
            (isApplication(path) || !Files.isDirectory(path) ? applicationPaths : folders).add(path);
        }
        this.deployer = Objects.requireNonNull(deployer, "deployer");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.out = Objects.requireNonNull(out, "out");
        this.err = Objects.requireNonNull(err, "err");
        this.pollMillis = Math.max(1, poll.toMillis());
        this.quietMillis = Math.max(0, quiet.toMillis());
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Whether a path is one application rather than a folder of them: a {@code .war}/{@code .sar} file, or a
     * directory with a {@code WEB-INF} directory.
     */
    public static boolean isApplication(final Path path)
    {
        if (Files.isDirectory(path))
        {
            return Files.isDirectory(path.resolve("WEB-INF"));
        }
        return isArchiveName(path);
    }

    private static boolean isArchiveName(final Path path)
    {
        final Path name = path.getFileName();
        if (null == name)
        {
            return false;
        }
        final String n = name.toString().toLowerCase(Locale.ROOT);
        return !n.startsWith(".") && (n.endsWith(".war") || n.endsWith(".sar"));
    }

    /**
     * Deploys the applications named directly and those complete in the folders now, then starts the watching
     * thread when there are folders. Failures are reported, not thrown.
     *
     * @throws IOException when a folder cannot be watched.
     */
    public void start() throws IOException
    {
        synchronized (lock)
        {
            if (closed || null != watchService)
            {
                throw new IllegalStateException(closed ? "closed" : "already started");
            }
            for (final Path path : applicationPaths)
            {
                final Signature signature = signatureOrNull(path);
                deployOrReport(path, null == signature ? new Signature(0, 0, 0) : signature);
            }
            scan(true);
            if (folders.isEmpty())
            {
                return;
            }
            watchService = FileSystems.getDefault().newWatchService();
            for (final Path folder : folders)
            {
                folder.register(watchService, StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_DELETE, StandardWatchEventKinds.ENTRY_MODIFY);
            }
        }
        thread = Thread.ofPlatform().name(THREAD_NAME).daemon(true).unstarted(this::watch);
        thread.start();
    }

    /** The applications deployed now, in deployment order; an immutable snapshot. */
    public List<DeployedApplication> applications()
    {
        return snapshot;
    }

    /** The folders being watched. */
    public List<Path> folders()
    {
        return List.copyOf(folders);
    }

    /**
     * Stops the watching thread (waiting for a deployment in progress to end), then undeploys every application
     * this watcher deployed, newest first: {@link DeploymentListener#onUndeployed}, then close.
     */
    @Override
    public void close()
    {
        closed = true;
        final WatchService ws;
        synchronized (lock)
        {
            ws = watchService;
        }
        if (null != ws)
        {
            try
            {
                ws.close(); // wakes the thread out of poll()
            }
            catch (final IOException e)
            {
                err.println("sipline: closing the deployment watcher: " + e);
            }
        }
        final Thread t = thread;
        if (null != t && Thread.currentThread() != t)
        {
            try
            {
                t.join(JOIN_MILLIS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (lock)
        {
            final List<Path> sources = new ArrayList<>(deployed.keySet());
            for (int i = sources.size() - 1; i >= 0; i--)
            {
                undeploy(sources.get(i));
            }
            publish();
        }
        out.flush();
        err.flush();
    }

    /** The watching thread: wake on an event or at the poll interval, drain the events, rescan. */
    private void watch()
    {
        while (!closed)
        {
            try
            {
                final WatchKey key = watchService.poll(pollMillis, TimeUnit.MILLISECONDS);
                if (null != key)
                {
                    key.pollEvents(); // what changed is read from the folder itself
                    key.reset();
                }
                synchronized (lock)
                {
                    if (!closed)
                    {
                        scan(false);
                    }
                }
            }
            catch (final ClosedWatchServiceException | InterruptedException e)
            {
                return;
            }
            catch (final RuntimeException | Error e)
            {
                // never let one bad scan end the watching: report it and look again at the next poll
                err.println("sipline: deployment watcher: " + ApplicationClassLoader.oneLine(e));
                err.flush();
            }
        }
    }

    /**
     * One pass over the watched folders: undeploy what disappeared, deploy what is new or replaced and has stopped
     * changing. Runs under {@link #lock}; package-private so that tests can drive it with their own clock.
     *
     * @param initial whether this is the scan at start (files already quiet by their modification time deploy at
     *                once).
     */
    void scan(final boolean initial)
    {
        final long now = clock.getAsLong();
        final Map<Path, Signature> present = new TreeMap<>();
        for (final Path folder : folders)
        {
            list(folder, present);
        }
        for (final Path source : new ArrayList<>(deployed.keySet()))
        {
            if (isInFolder(source) && !present.containsKey(source))
            {
                undeploy(source);
            }
        }
        failed.keySet().retainAll(present.keySet());
        pending.keySet().retainAll(present.keySet());
        for (final Map.Entry<Path, Signature> e : present.entrySet())
        {
            final Path path = e.getKey();
            final Signature signature = e.getValue();
            final Entry current = deployed.get(path);
            if ((null != current && current.signature().equals(signature)) || signature.equals(failed.get(path)))
            {
                pending.remove(path);
                continue;
            }
            final Pending seen = pending.get(path);
            final boolean quiet = null != seen && seen.signature().equals(signature) ?
                now - seen.firstSeenMillis() >= quietMillis :
                initial && now - signature.newestMillis() >= quietMillis;
            if (!quiet)
            {
                if (null == seen || !seen.signature().equals(signature))
                {
                    pending.put(path, new Pending(signature, now));
                }
                continue;
            }
            pending.remove(path);
            deployOrReport(path, signature);
        }
        publish();
    }

    private boolean isInFolder(final Path source)
    {
        return folders.contains(source.getParent()) && !applicationPaths.contains(source);
    }

    /** Adds the applications in a folder, with their signatures; reports a folder that cannot be listed once. */
    private void list(final Path folder, final Map<Path, Signature> present)
    {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder))
        {
            for (final Path entry : entries)
            {
                if (isApplication(entry) && !entry.getFileName().toString().startsWith("."))
                {
                    final Signature signature = signatureOrNull(entry);
                    if (null != signature)
                    {
                        present.put(entry, signature);
                    }
                }
            }
            unreadable.remove(folder);
        }
        catch (final IOException | UncheckedIOException e)
        {
            final String why = e instanceof NoSuchFileException ? "the folder no longer exists" : e.toString();
            if (!why.equals(unreadable.put(folder, why)))
            {
                err.println("sipline: cannot watch " + folder + ": " + why);
                err.flush();
            }
        }
    }

    /** The signature of a file or directory tree, or null when it vanished while being read. */
    static Signature signatureOrNull(final Path path)
    {
        try
        {
            if (!Files.isDirectory(path))
            {
                final BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
                return new Signature(1, a.size(), a.lastModifiedTime().toMillis());
            }
            long files = 0;
            long bytes = 0;
            long newest = 0;
            try (Stream<Path> tree = Files.walk(path))
            {
                for (final Path p : (Iterable<Path>) tree::iterator)
                {
                    final BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                    files++;
                    bytes += a.isRegularFile() ? a.size() : 0;
                    newest = Math.max(newest, a.lastModifiedTime().toMillis());
                }
            }
            return new Signature(files, bytes, newest);
        }
        catch (final IOException | UncheckedIOException e)
        {
            return null;
        }
    }

    /**
     * Loads the application at {@code path}; on success replaces the version deployed from the same path (if any)
     * and starts it; on failure prints one line and remembers the signature it failed at.
     */
    private void deployOrReport(final Path path, final Signature signature)
    {
        final DeployedApplication application;
        try
        {
            application = deployer.deploy(path);
        }
        catch (final DeploymentException | RuntimeException | LinkageError e)
        {
            reportFailure(path, signature, e);
            return;
        }
        if (deployed.containsKey(path))
        {
            undeploy(path);
        }
        try
        {
            listener.onDeployed(application);
        }
        catch (final DeploymentException | RuntimeException | LinkageError e)
        {
            closeQuietly(application);
            reportFailure(path, signature, e);
            return;
        }
        failed.remove(path);
        deployed.put(path, new Entry(application, signature));
        publish();
        out.println("sipline: deployed " + application.name() + " (servlets "
            + (application.servlets().isEmpty() ? "none" : String.join(", ", application.servlets().keySet()))
            + ") from " + path);
        out.flush();
    }

    private void reportFailure(final Path path, final Signature signature, final Throwable e)
    {
        failed.put(path, signature);
        final String what = e instanceof DeploymentException d ? d.getMessage() :
            path + ": " + ApplicationClassLoader.oneLine(e);
        err.println("sipline: cannot deploy " + what);
        err.flush();
    }

    /** Stops and closes the application deployed from {@code source}; never throws. */
    private void undeploy(final Path source)
    {
        final Entry entry = deployed.remove(source);
        if (null == entry)
        {
            return;
        }
        publish();
        try
        {
            listener.onUndeployed(entry.application());
        }
        catch (final RuntimeException | LinkageError e)
        {
            err.println("sipline: undeploying " + entry.application().name() + " from " + source + ": "
                + ApplicationClassLoader.oneLine(e));
        }
        closeQuietly(entry.application());
        out.println("sipline: undeployed " + entry.application().name() + " from " + source);
        out.flush();
        err.flush();
    }

    private void closeQuietly(final DeployedApplication application)
    {
        try
        {
            application.close();
        }
        catch (final IOException e)
        {
            err.println("sipline: closing " + application.name() + " from " + application.source() + ": " + e);
        }
    }

    private void publish()
    {
        final List<DeployedApplication> apps = new ArrayList<>(deployed.size());
        for (final Entry e : deployed.values())
        {
            apps.add(e.application());
        }
        snapshot = List.copyOf(apps);
    }
}
