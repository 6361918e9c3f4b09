package io.sipline.container.deploy;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Builds small SIP applications for tests: compiles annotated sources with the JDK's compiler against the API jars
 * the container uses, lays them out as exploded {@code WEB-INF} directories, and packs WARs and jars with
 * {@code java.util.zip}.
 */
public final class TestApplications
{
    private TestApplications()
    {
    }

    /**
     * @param sources  file path (e.g. {@code com/example/A.java}) to source text.
     * @param classDir where the class files go.
     */
    public static void compile(final Map<String, String> sources, final Path classDir) throws IOException
    {
        final Path sourceDir = Files.createTempDirectory("sipline-src");
        final List<String> arguments = new ArrayList<>(List.of(
            "-d", classDir.toString(), "-proc:none", "--release", "25", "-classpath", apiClassPath()));
        for (final Map.Entry<String, String> source : sources.entrySet())
        {
            final Path file = sourceDir.resolve(source.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, source.getValue(), StandardCharsets.UTF_8);
            arguments.add(file.toString());
        }
        final JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        final StringWriter errors = new StringWriter();
        final int status = compiler.run(null, null, new WriterStream(errors), arguments.toArray(String[]::new));
        if (0 != status)
        {
            throw new IllegalStateException("test sources do not compile:\n" + errors);
        }
    }

    /**
     * @param root    the zip to write.
     * @param entries entry name to bytes, or a directory whose files become entries under a prefix.
     */
    public static void zip(final Path root, final Map<String, byte[]> entries) throws IOException
    {
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(root)))
        {
            for (final Map.Entry<String, byte[]> entry : entries.entrySet())
            {
                out.putNextEntry(new ZipEntry(entry.getKey()));
                out.write(entry.getValue());
                out.closeEntry();
            }
        }
    }

    /**
     * @param dir    a directory.
     * @param prefix the entry prefix, e.g. {@code WEB-INF/classes/}.
     * @param into   receives entry name to bytes for every file under {@code dir}.
     */
    public static void collect(final Path dir, final String prefix, final Map<String, byte[]> into) throws IOException
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path file : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator)
            {
                into.put(prefix + dir.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
            }
        }
    }

    private static String apiClassPath()
    {
        return jarOf(javax.servlet.sip.SipServlet.class) + java.io.File.pathSeparator
            + jarOf(javax.servlet.ServletException.class) + java.io.File.pathSeparator
            + jarOf(javax.annotation.Resource.class);
    }

    private static String jarOf(final Class<?> type)
    {
        try
        {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** Adapts the compiler's diagnostic stream to a writer. */
    private static final class WriterStream extends OutputStream
    {
        private final StringWriter writer;

        WriterStream(final StringWriter writer)
        {
            this.writer = writer;
        }

        @Override
        public void write(final int b)
        {
            writer.write(b);
        }
    }
}
