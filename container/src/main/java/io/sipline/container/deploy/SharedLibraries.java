package io.sipline.container.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The libraries the container provides to every application, as a web container's common {@code lib/} folder does:
 * the jars a WAR was built against with scope {@code provided} (a logging API its old container shipped, a JDBC
 * driver), which the WAR therefore does not carry. {@link #jars} expands what {@code --shared-lib} named into jar
 * files; {@link #loader} makes the one class loader that stands between the container and every application loader,
 * so that an application still finds its own {@code WEB-INF/lib} copy first (child-first, see
 * {@link ApplicationClassLoader}) and a class of a shared jar is the same class in every application.
 * <p>
 * Threading: used once, on the starting thread. The loader lives as long as the server.
 */
public final class SharedLibraries
{
    private SharedLibraries()
    {
    }

    /**
     * @param given jar files and directories (whose {@code *.jar} files are taken, in name order), as named.
     * @return the jar files, absolute, in the order given.
     * @throws IllegalArgumentException naming the path, when it does not exist, is neither a jar nor a directory, or
     *                                  is a directory without a jar.
     */
    public static List<Path> jars(final List<String> given)
    {
        final List<Path> jars = new ArrayList<>();
        for (final String name : given)
        {
            final Path path = Path.of(name).toAbsolutePath().normalize();
            if (Files.isDirectory(path))
            {
                final List<Path> found = jarsIn(path);
                if (found.isEmpty())
                {
                    throw new IllegalArgumentException(name + " is a directory without a .jar file");
                }
                jars.addAll(found);
            }
            else if (!Files.isRegularFile(path))
            {
                throw new IllegalArgumentException("no such file or directory: " + name);
            }
            else if (!path.getFileName().toString().endsWith(".jar") || !Files.isReadable(path))
            {
                throw new IllegalArgumentException(name + " is not a readable .jar file");
            }
            else
            {
                jars.add(path);
            }
        }
        return List.copyOf(jars);
    }

    /**
     * @param jars   from {@link #jars}; empty for none.
     * @param parent the container's loader.
     * @return {@code parent} itself when there is no jar, else a loader over the jars (parent first: these are
     *         container-wide classes) whose parent is {@code parent}.
     */
    public static ClassLoader loader(final List<Path> jars, final ClassLoader parent)
    {
        if (jars.isEmpty())
        {
            return parent;
        }
        final URL[] urls = new URL[jars.size()];
        for (int i = 0; i < urls.length; i++)
        {
            try
            {
                urls[i] = jars.get(i).toUri().toURL();
            }
            catch (final MalformedURLException e)
            {
                throw new IllegalArgumentException("not a usable path: " + jars.get(i), e);
            }
        }
        return new URLClassLoader("sipline-shared", urls, parent);
    }

    private static List<Path> jarsIn(final Path dir)
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(p -> p.getFileName().toString().endsWith(".jar") && Files.isRegularFile(p))
                .sorted().toList();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }
}
