package io.sipline.container.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --shared-lib}: jars and directories of jars expanded and checked, and the loader between the container and
 * the applications: a shared resource is seen by an application, and the application's own copy comes first.
 */
class SharedLibrariesTest
{
    @TempDir
    Path dir;

    @Test
    void shouldExpandADirectoryIntoItsJarsInNameOrder() throws IOException
    {
        final Path lib = Files.createDirectories(dir.resolve("lib"));
        final Path b = jar(lib.resolve("b.jar"), "b.txt", "b");
        final Path a = jar(lib.resolve("a.jar"), "a.txt", "a");
        Files.writeString(lib.resolve("notes.txt"), "not a jar");
        final Path single = jar(dir.resolve("single.jar"), "s.txt", "s");
        assertEquals(List.of(single, a, b), SharedLibraries.jars(List.of(single.toString(), lib.toString())));
    }

    @Test
    void shouldNameWhatItRefuses() throws IOException
    {
        final String missing = dir.resolve("missing.jar").toString();
        assertEquals("no such file or directory: " + missing, refused(missing));
        final Path empty = Files.createDirectories(dir.resolve("empty"));
        assertEquals(empty + " is a directory without a .jar file", refused(empty.toString()));
        final Path text = Files.writeString(dir.resolve("lib.txt"), "x");
        assertEquals(text + " is not a readable .jar file", refused(text.toString()));
    }

    @Test
    void shouldBeTheContainerLoaderItselfWithoutJars()
    {
        final ClassLoader container = getClass().getClassLoader();
        assertSame(container, SharedLibraries.loader(List.of(), container));
    }

    @Test
    void shouldShowSharedResourcesToAnApplicationAfterItsOwn() throws Exception
    {
        final Path shared = jar(dir.resolve("shared.jar"), "config/shared.txt", "from the shared lib");
        jar(dir.resolve("other.jar"), "config/own.txt", "from the shared lib");
        final ClassLoader common = SharedLibraries.loader(
            SharedLibraries.jars(List.of(shared.toString(), dir.resolve("other.jar").toString())),
            getClass().getClassLoader());
        final Path app = dir.resolve("app");
        Files.createDirectories(app.resolve("WEB-INF/classes/config"));
        Files.writeString(app.resolve("WEB-INF/classes/config/own.txt"), "from the application");
        Files.writeString(app.resolve("WEB-INF/sip.xml"), "<sip-app><app-name>shared-test</app-name></sip-app>");
        try (ApplicationArchive archive = ApplicationArchive.open(app);
            ApplicationClassLoader loader = ApplicationClassLoader.create(archive, "shared-test", common, null))
        {
            assertEquals("from the shared lib", read(loader, "config/shared.txt"));
            assertEquals("from the application", read(loader, "config/own.txt"), "child-first over the shared lib");
        }
    }

    private static String refused(final String path)
    {
        return assertThrows(IllegalArgumentException.class, () -> SharedLibraries.jars(List.of(path))).getMessage();
    }

    private static String read(final ClassLoader loader, final String resource) throws IOException
    {
        try (InputStream in = loader.getResourceAsStream(resource))
        {
            return null == in ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static Path jar(final Path file, final String entry, final String text) throws IOException
    {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(file)))
        {
            out.putNextEntry(new JarEntry(entry));
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        return file;
    }
}
