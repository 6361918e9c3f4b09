package io.sipline.container.deploy;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

/**
 * Read access to one SIP application as deployed: a {@code .war} (or {@code .sar}) zip file or an exploded
 * directory with the same layout. It exposes {@code WEB-INF/sip.xml}, the class files under
 * {@code WEB-INF/classes/}, and the classes inside {@code WEB-INF/lib/*.jar}, without loading anything; class
 * loaders per application are built elsewhere.
 * <p>
 * A file that is not a readable zip, an entry that cannot be read, or an entry larger than
 * {@value #MAX_ENTRY_BYTES} bytes (a zip bomb guard) is a {@link DeploymentException} naming the file and entry.
 * <p>
 * Threading: not thread-safe; one deployment thread opens, reads and closes an archive.
 */
public final class ApplicationArchive implements AutoCloseable
{
    /** Path of the deployment descriptor inside the application. */
    public static final String SIP_XML = "WEB-INF/sip.xml";

    /** Prefix of the application's own classes. */
    public static final String CLASSES = "WEB-INF/classes/";

    /** Prefix of the application's libraries. */
    public static final String LIB = "WEB-INF/lib/";

    /** Largest single entry read into memory. */
    public static final int MAX_ENTRY_BYTES = 64 * 1024 * 1024;

    /**
     * Receives class files.
     */
    @FunctionalInterface
    public interface ClassFileVisitor
    {
        /**
         * @param origin where the class file is, e.g. {@code app.war!/WEB-INF/lib/x.jar!/a/B.class}.
         * @param bytes  the class file.
         * @throws DeploymentException to stop the walk.
         */
        void visit(String origin, byte[] bytes) throws DeploymentException;
    }

    private final Path path;
    private final ZipFile zip;

    private ApplicationArchive(final Path path, final ZipFile zip)
    {
        this.path = path;
        this.zip = zip;
    }

    /**
     * @param path a {@code .war} file or an exploded application directory.
     * @return the opened archive; close it when done.
     * @throws DeploymentException when the path does not exist or is not a readable zip.
     */
    public static ApplicationArchive open(final Path path) throws DeploymentException
    {
        if (Files.isDirectory(path))
        {
            return new ApplicationArchive(path, null);
        }
        if (!Files.isRegularFile(path))
        {
            throw new DeploymentException(path.toString(), "no such file or directory");
        }
        try
        {
            return new ApplicationArchive(path, new ZipFile(path.toFile()));
        }
        catch (final ZipException ex)
        {
            throw new DeploymentException(path.toString(), DeploymentException.NO_LINE,
                "not a readable WAR (zip) file: " + ex.getMessage(), ex);
        }
        catch (final IOException ex)
        {
            throw new DeploymentException(path.toString(), DeploymentException.NO_LINE, "cannot open: " + ex, ex);
        }
    }

    /**
     * @return the file or directory this archive was opened from.
     */
    public Path path()
    {
        return path;
    }

    /**
     * @return whether this is an exploded directory.
     */
    public boolean isDirectory()
    {
        return null == zip;
    }

    /**
     * @return the default application name: the file name without a {@code .war}/{@code .sar} extension.
     */
    public String baseName()
    {
        final Path fileName = path.getFileName();
        final String name = null == fileName ? path.toString() : fileName.toString();
        final String lower = name.toLowerCase(Locale.ROOT);
        return lower.endsWith(".war") || lower.endsWith(".sar") ? name.substring(0, name.length() - 4) : name;
    }

    /**
     * @param entry an entry path inside the application, with {@code /} separators.
     * @return a name for messages: {@code <archive>!/<entry>} for a zip, the file path for a directory.
     */
    public String describe(final String entry)
    {
        return isDirectory() ? path.resolve(entry).toString() : path + "!/" + entry;
    }

    /**
     * @return the bytes of {@code WEB-INF/sip.xml}, if present.
     * @throws DeploymentException when it is present but unreadable.
     */
    public Optional<byte[]> sipXml() throws DeploymentException
    {
        return read(SIP_XML);
    }

    /**
     * @param entry an entry path with {@code /} separators, relative to the application root.
     * @return its bytes, or empty when absent.
     * @throws DeploymentException when present but unreadable, too large, or the path leaves the application.
     */
    public Optional<byte[]> read(final String entry) throws DeploymentException
    {
        if (entry.startsWith("/") || entry.contains("..") || entry.contains("\\"))
        {
            throw new DeploymentException(describe(entry), "entry path leaves the application");
        }
        try
        {
            if (isDirectory())
            {
                final Path file = path.resolve(entry);
                if (!Files.isRegularFile(file))
                {
                    return Optional.empty();
                }
                try (InputStream in = Files.newInputStream(file))
                {
                    return Optional.of(readBounded(in, Files.size(file), entry));
                }
            }
            final ZipEntry zipEntry = zip.getEntry(entry);
            if (null == zipEntry || zipEntry.isDirectory())
            {
                return Optional.empty();
            }
            try (InputStream in = zip.getInputStream(zipEntry))
            {
                return Optional.of(readBounded(in, zipEntry.getSize(), entry));
            }
        }
        catch (final NoSuchFileException ex)
        {
            return Optional.empty();
        }
        catch (final IOException ex)
        {
            throw new DeploymentException(describe(entry), DeploymentException.NO_LINE, "cannot read: " + ex, ex);
        }
    }

    /**
     * @return the class file entries under {@code WEB-INF/classes/}, sorted.
     * @throws DeploymentException when the directory cannot be listed.
     */
    public List<String> classEntries() throws DeploymentException
    {
        return entries(CLASSES, true, ".class");
    }

    /**
     * @return the jar entries directly under {@code WEB-INF/lib/}, sorted.
     * @throws DeploymentException when the directory cannot be listed.
     */
    public List<String> libraryEntries() throws DeploymentException
    {
        return entries(LIB, false, ".jar");
    }

    /**
     * Visits every class file of the application: {@code WEB-INF/classes/**.class} first, then the classes of each
     * {@code WEB-INF/lib/*.jar} (skipping {@code META-INF/}, so multi-release variants are not seen twice).
     *
     * @param visitor receives each class file.
     * @throws DeploymentException when an entry or a nested jar cannot be read, or the visitor refuses a class.
     */
    public void forEachClass(final ClassFileVisitor visitor) throws DeploymentException
    {
        for (final String entry : classEntries())
        {
            visitor.visit(describe(entry), read(entry).orElseThrow());
        }
        for (final String jar : libraryEntries())
        {
            final byte[] jarBytes = read(jar).orElseThrow();
            final String jarName = describe(jar);
            try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jarBytes)))
            {
                ZipEntry entry;
                while (null != (entry = in.getNextEntry()))
                {
                    final String name = entry.getName();
                    if (!entry.isDirectory() && name.endsWith(".class") && !name.startsWith("META-INF/"))
                    {
                        visitor.visit(jarName + "!/" + name, readBounded(in, entry.getSize(), jar + "!/" + name));
                    }
                }
            }
            catch (final IOException ex)
            {
                throw new DeploymentException(jarName, DeploymentException.NO_LINE,
                    "not a readable jar: " + ex.getMessage(), ex);
            }
        }
    }

    private List<String> entries(final String prefix, final boolean recursive, final String suffix)
        throws DeploymentException
    {
        final List<String> found = new ArrayList<>();
        if (isDirectory())
        {
            final Path dir = path.resolve(prefix);
            if (!Files.isDirectory(dir))
            {
                return found;
            }
            try (Stream<Path> walk = recursive ? Files.walk(dir) : Files.list(dir))
            {
                walk.filter(Files::isRegularFile)
                    .map(file -> path.relativize(file).toString().replace(File.separatorChar, '/'))
                    .filter(name -> name.endsWith(suffix))
                    .forEach(found::add);
            }
            catch (final IOException | UncheckedIOException ex)
            {
                throw new DeploymentException(dir.toString(), DeploymentException.NO_LINE, "cannot list: " + ex, ex);
            }
        }
        else
        {
            final Enumeration<? extends ZipEntry> all = zip.entries();
            while (all.hasMoreElements())
            {
                final ZipEntry entry = all.nextElement();
                final String name = entry.getName();
                if (!entry.isDirectory() && name.startsWith(prefix) && name.endsWith(suffix)
                    && !name.contains("..") && (recursive || name.indexOf('/', prefix.length()) < 0))
                {
                    found.add(name);
                }
            }
        }
        Collections.sort(found);
        return found;
    }

    private byte[] readBounded(final InputStream in, final long declaredSize, final String entry)
        throws IOException, DeploymentException
    {
        if (declaredSize > MAX_ENTRY_BYTES)
        {
            throw new DeploymentException(describe(entry), "entry of " + declaredSize + " bytes exceeds the limit of "
                + MAX_ENTRY_BYTES);
        }
        final byte[] bytes = in.readNBytes(MAX_ENTRY_BYTES + 1);
        if (bytes.length > MAX_ENTRY_BYTES)
        {
            throw new DeploymentException(describe(entry), "entry exceeds the limit of " + MAX_ENTRY_BYTES + " bytes");
        }
        return bytes;
    }

    @Override
    public void close() throws DeploymentException
    {
        if (null != zip)
        {
            try
            {
                zip.close();
            }
            catch (final IOException ex)
            {
                throw new DeploymentException(path.toString(), DeploymentException.NO_LINE, "cannot close: " + ex, ex);
            }
        }
    }

    @Override
    public String toString()
    {
        return path.toString();
    }
}
