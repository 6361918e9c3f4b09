package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The public SIP servlet applications of the compatibility suite ({@code src/test/compat/NAME}, copied unchanged
 * from their project; origin and licence in {@code src/test/compat/README.md}), built as their own Maven build did:
 * {@code src/main/java} compiled against the servlet and SIP servlet APIs and the libraries their old container
 * provided, {@code src/main/sipapp} as the WAR's root, into {@code WORK/NAME.war}.
 * <p>
 * Threading: used by one test thread.
 */
final class CompatApps
{
    private CompatApps()
    {
    }

    /** The copied application NAME. */
    static Path source(final String name)
    {
        final Path dir = Examples.root().resolve("container/src/test/compat").resolve(name);
        assertTrue(Files.isDirectory(dir), dir + " is missing");
        return dir;
    }

    /** The jars Mobicents/Restcomm gave its applications as 'provided', for {@code --shared-lib}. */
    static Path sharedLib()
    {
        final Path dir = Examples.root().resolve("container/target/compat-lib");
        assertTrue(Files.isDirectory(dir), dir + " is missing: the container's build copies it "
            + "(maven-dependency-plugin, generate-test-resources)");
        return dir;
    }

    /** Compiles and packs application NAME into {@code work/NAME.war}; returns the WAR. */
    static Path war(final String name, final Path work) throws IOException
    {
        return war(name, name, work);
    }

    /** Compiles application NAME and packs it as its build named it, {@code work/WARNAME.war}; returns the WAR. */
    static Path war(final String name, final String warName, final Path work) throws IOException
    {
        final Path src = source(name);
        final Path root = src.resolve("src/main/sipapp");
        final Path classes = Files.createDirectories(work.resolve(name + "-classes"));
        final List<String> args = new ArrayList<>(List.of("-nowarn", "-proc:none", "-encoding", "UTF-8",
            "-d", classes.toString(), "-cp", classPath()));
        try (Stream<Path> files = Files.walk(src.resolve("src/main/java")))
        {
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> args.add(p.toString()));
        }
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        final ByteArrayOutputStream output = new ByteArrayOutputStream();
        final boolean compiled = 0 == javac.run(null, output, output, args.toArray(String[]::new));
        assertTrue(compiled, "cannot compile " + name + ":\n" + output.toString(StandardCharsets.UTF_8));
        final Path war = work.resolve(warName + ".war");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(war)))
        {
            add(out, root, "");
            add(out, classes, "WEB-INF/classes/");
        }
        return war;
    }

    /** Fails the test, naming the port, when an application's hard-coded UDP port on 127.0.0.1 is taken. */
    static void requireFree(final int port)
    {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), port)))
        {
            s.getLocalPort();
        }
        catch (final SocketException e)
        {
            throw new AssertionError("127.0.0.1:" + port + " is taken, and the application sends there unchanged: "
                + e.getMessage());
        }
    }

    private static String classPath() throws IOException
    {
        final StringBuilder cp = new StringBuilder(System.getProperty("java.class.path"));
        try (Stream<Path> jars = Files.list(sharedLib()))
        {
            jars.forEach(j -> cp.append(java.io.File.pathSeparatorChar).append(j));
        }
        return cp.toString();
    }

    private static void add(final JarOutputStream out, final Path dir, final String prefix) throws IOException
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path p : files.filter(Files::isRegularFile).sorted().toList())
            {
                out.putNextEntry(new JarEntry(prefix + dir.relativize(p).toString().replace('\\', '/')));
                Files.copy(p, out);
                out.closeEntry();
            }
        }
    }
}
