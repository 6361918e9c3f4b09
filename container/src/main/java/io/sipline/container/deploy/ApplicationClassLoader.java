package io.sipline.container.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The class loader of one deployed SIP application, over {@code WEB-INF/classes/} and {@code WEB-INF/lib/*.jar}
 * (JSR 289 §1.4 / Servlet 3.1 §10.7).
 * <p>
 * Delegation (Servlet 3.1 §10.7.2): the Java SE platform (anything the platform class loader can see), {@code java.},
 * {@code javax.} (which covers the container's API, {@code javax.servlet.} and {@code javax.servlet.sip.}),
 * {@code jdk.}, {@code sun.} and {@code io.sipline.} always come from the parent, so that a servlet's
 * {@code SipServlet} is the container's {@code SipServlet} even when the application ships the API jar; only a class
 * of those namespaces the parent does not have (outside {@code java.}) is taken from the application. Every other
 * class and resource is looked up in the application first and in the parent only when the application does not have
 * it (child-first, as web containers do).
 * <p>
 * Layout: an exploded directory is used in place. A WAR is extracted once ({@code WEB-INF/classes/**} and
 * {@code WEB-INF/lib/*.jar} only) into a temporary directory owned by this loader, and a {@link URLClassLoader} reads
 * from there. Extracting, rather than defining classes from bytes read out of the zip, gives correct resource URLs,
 * code sources, manifest packages and multi-release jars from the JDK, needs no hand-written nested-jar reader, and
 * lets the hot deployer replace or delete the WAR while this version still serves. {@link #close()} closes the jars
 * and deletes the temporary directory; afterwards no application class can be loaded.
 * <p>
 * Threading: registered as parallel capable; classes may be loaded from any thread. {@link #close()} is called once,
 * by the deployer, after the application has stopped.
 */
public final class ApplicationClassLoader extends URLClassLoader
{
    static
    {
        ClassLoader.registerAsParallelCapable();
    }

    /** Largest total of bytes extracted from one WAR (a zip bomb guard). */
    public static final long MAX_EXTRACTED_BYTES = 1L << 30;

    private static final String[] PARENT_FIRST = {
        "java.", "javax.", "jdk.", "sun.", "io.sipline.",
    };

    private static final ClassLoader PLATFORM = ClassLoader.getPlatformClassLoader();

    private final Path source;
    private final Path extracted;
    private volatile boolean closed;

    private ApplicationClassLoader(
        final String name, final URL[] urls, final ClassLoader parent, final Path source, final Path extracted)
    {
        super(name, urls, parent);
        this.source = source;
        this.extracted = extracted;
    }

    /**
     * Creates the loader of an application, extracting a WAR into a new temporary directory.
     *
     * @param archive the opened application; it may be closed as soon as this returns.
     * @param name    the application name, used as the loader's name.
     * @param parent  the container's class loader, which supplies the API.
     * @return the loader; close it when the application is undeployed.
     * @throws DeploymentException naming the archive (and entry) when it cannot be read or extracted.
     */
    public static ApplicationClassLoader create(
        final ApplicationArchive archive, final String name, final ClassLoader parent) throws DeploymentException
    {
        return create(archive, name, parent, null);
    }

    /**
     * @param archive  the opened application; it may be closed as soon as this returns.
     * @param name     the application name, used as the loader's name.
     * @param parent   the container's class loader, which supplies the API.
     * @param workRoot the directory under which a WAR is extracted, or {@code null} for the system temporary one.
     * @return the loader; close it when the application is undeployed.
     * @throws DeploymentException naming the archive (and entry) when it cannot be read or extracted.
     */
    public static ApplicationClassLoader create(
        final ApplicationArchive archive, final String name, final ClassLoader parent, final Path workRoot)
        throws DeploymentException
    {
        Objects.requireNonNull(parent, "parent");
        final Path root;
        Path extracted = null;
        if (archive.isDirectory())
        {
            root = archive.path();
        }
        else
        {
            extracted = extract(archive, workRoot);
            root = extracted;
        }
        try
        {
            final List<URL> urls = new ArrayList<>();
            urls.add(root.resolve(ApplicationArchive.CLASSES).toUri().toURL());
            for (final String jar : archive.libraryEntries())
            {
                urls.add(root.resolve(jar).toUri().toURL());
            }
            return new ApplicationClassLoader(
                "sipline-app:" + name, urls.toArray(URL[]::new), parent, archive.path(), extracted);
        }
        catch (final MalformedURLException | RuntimeException ex)
        {
            deleteQuietly(extracted);
            throw new DeploymentException(archive.path().toString(), DeploymentException.NO_LINE,
                "cannot build the class path: " + ex, ex);
        }
        catch (final DeploymentException ex)
        {
            deleteQuietly(extracted);
            throw ex;
        }
    }

    /**
     * @return the WAR or directory this loader was built from.
     */
    public Path source()
    {
        return source;
    }

    /**
     * @return the temporary directory a WAR was extracted into, or {@code null} for an exploded directory.
     */
    public Path extractedDirectory()
    {
        return extracted;
    }

    /**
     * @return whether {@link #close()} was called.
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * @param className a binary class name.
     * @return whether the class is always taken from the parent (the platform, the API, the container).
     */
    public static boolean isParentFirst(final String className)
    {
        for (final String prefix : PARENT_FIRST)
        {
            if (className.startsWith(prefix))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The parent's class; when the parent has none, the application's own class of that name (a shared namespace
     * such as {@code io.sipline.examples.} or {@code javax.sip.} that the container does not provide). Never for
     * {@code java.}, which only the platform may define.
     */
    private Class<?> loadParentFirst(final String name) throws ClassNotFoundException
    {
        try
        {
            return getParent().loadClass(name);
        }
        catch (final ClassNotFoundException ex)
        {
            if (closed || name.startsWith("java."))
            {
                throw ex;
            }
            try
            {
                return findClass(name);
            }
            catch (final ClassNotFoundException notHereEither)
            {
                ex.addSuppressed(notHereEither);
                throw ex;
            }
        }
    }

    @Override
    protected Class<?> loadClass(final String name, final boolean resolve) throws ClassNotFoundException
    {
        synchronized (getClassLoadingLock(name))
        {
            Class<?> type = findLoadedClass(name);
            if (null == type)
            {
                if (isParentFirst(name) || isPlatformClass(name))
                {
                    type = loadParentFirst(name);
                }
                else
                {
                    if (closed)
                    {
                        throw new ClassNotFoundException(name + " (the class loader of " + source + " is closed)");
                    }
                    try
                    {
                        type = findClass(name);
                    }
                    catch (final ClassNotFoundException ex)
                    {
                        type = getParent().loadClass(name);
                    }
                }
            }
            if (resolve)
            {
                resolveClass(type);
            }
            return type;
        }
    }

    @Override
    public URL getResource(final String name)
    {
        if (isParentFirstResource(name))
        {
            return super.getResource(name);
        }
        final URL own = closed ? null : findResource(name);
        return null != own ? own : getParent().getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(final String name) throws IOException
    {
        if (isParentFirstResource(name))
        {
            return super.getResources(name);
        }
        final Set<URL> all = new LinkedHashSet<>();
        if (!closed)
        {
            all.addAll(Collections.list(findResources(name)));
        }
        all.addAll(Collections.list(getParent().getResources(name)));
        return Collections.enumeration(all);
    }

    @Override
    public InputStream getResourceAsStream(final String name)
    {
        final URL url = getResource(name);
        try
        {
            return null == url ? null : url.openStream();
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    /**
     * Closes the jars and deletes the extracted copy of a WAR. Later loads of application classes fail.
     *
     * @throws IOException when a jar cannot be closed or the directory cannot be deleted.
     */
    @Override
    public void close() throws IOException
    {
        closed = true;
        try
        {
            super.close();
        }
        finally
        {
            if (null != extracted)
            {
                delete(extracted);
            }
        }
    }

    @Override
    public String toString()
    {
        return getName() + " (" + source + ')';
    }

    private static boolean isPlatformClass(final String name)
    {
        return null != PLATFORM.getResource(name.replace('.', '/') + ".class");
    }

    private static boolean isParentFirstResource(final String name)
    {
        final String asClass = name.replace('/', '.');
        return isParentFirst(asClass) || (name.endsWith(".class") && null != PLATFORM.getResource(name));
    }

    private static Path extract(final ApplicationArchive archive, final Path workRoot) throws DeploymentException
    {
        final Path war = archive.path();
        final Path target;
        try
        {
            final String prefix = "sipline-" + archive.baseName().replaceAll("[^A-Za-z0-9._-]", "_") + '-';
            target = null == workRoot ? Files.createTempDirectory(prefix) : Files.createTempDirectory(workRoot, prefix);
        }
        catch (final IOException ex)
        {
            throw new DeploymentException(war.toString(), DeploymentException.NO_LINE,
                "cannot create a directory to extract into: " + ex, ex);
        }
        try (ZipFile zip = new ZipFile(war.toFile()))
        {
            long total = 0;
            final Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements())
            {
                final ZipEntry entry = entries.nextElement();
                final String name = entry.getName();
                if (entry.isDirectory() || !wanted(name))
                {
                    continue;
                }
                final Path file = target.resolve(name).normalize();
                if (name.startsWith("/") || name.contains("\\") || name.contains("..") || !file.startsWith(target))
                {
                    throw new DeploymentException(archive.describe(name), "entry path leaves the application");
                }
                Files.createDirectories(file.getParent());
                try (InputStream in = zip.getInputStream(entry); OutputStream out = Files.newOutputStream(file))
                {
                    total += copyBounded(in, out, MAX_EXTRACTED_BYTES - total, archive, name);
                }
            }
            return target;
        }
        catch (final DeploymentException ex)
        {
            deleteQuietly(target);
            throw ex;
        }
        catch (final IOException | RuntimeException ex)
        {
            deleteQuietly(target);
            throw new DeploymentException(war.toString(), DeploymentException.NO_LINE,
                "cannot extract: " + oneLine(ex), ex);
        }
    }

    private static boolean wanted(final String name)
    {
        return name.startsWith(ApplicationArchive.CLASSES)
            || name.startsWith(ApplicationArchive.LIB) && name.endsWith(".jar")
            && name.indexOf('/', ApplicationArchive.LIB.length()) < 0;
    }

    private static long copyBounded(
        final InputStream in, final OutputStream out, final long allowed, final ApplicationArchive archive,
        final String name) throws IOException, DeploymentException
    {
        final byte[] buffer = new byte[64 * 1024];
        long copied = 0;
        int read;
        while ((read = in.read(buffer)) > 0)
        {
            copied += read;
            if (copied > ApplicationArchive.MAX_ENTRY_BYTES || copied > allowed)
            {
                throw new DeploymentException(archive.describe(name),
                    "extraction exceeds the size limit (entry " + ApplicationArchive.MAX_ENTRY_BYTES
                        + " bytes, application " + MAX_EXTRACTED_BYTES + " bytes)");
            }
            out.write(buffer, 0, read);
        }
        return copied;
    }

    /** A failure on one line: its class and message, line breaks folded (for the one-line deployment errors). */
    public static String oneLine(final Throwable failure)
    {
        final String text = null == failure.getMessage() ? failure.getClass().getName()
            : failure.getClass().getSimpleName() + ": " + failure.getMessage();
        return text.replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }

    private static void deleteQuietly(final Path dir)
    {
        if (null == dir)
        {
            return;
        }
        try
        {
            delete(dir);
        }
        catch (final IOException ex)
        {
            // best effort while already failing
        }
    }

    private static void delete(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir))
        {
            for (final Path path : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(path);
            }
        }
        catch (final UncheckedIOException ex)
        {
            throw ex.getCause();
        }
    }
}
