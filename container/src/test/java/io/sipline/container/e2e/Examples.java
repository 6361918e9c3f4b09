package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * The example WARs ({@code examples/NAME/target/NAME.war}, built before the container by the reactor) and the
 * sipp scenarios of {@code src/test/resources/e2e/}, as files the tests hand to the server and to sipp.
 */
public final class Examples
{
    private static final Pattern PARAM = Pattern.compile(
        "(<(?:javaee:)?param-name>\\s*(\\S+?)\\s*</(?:javaee:)?param-name>\\s*<(?:javaee:)?param-value>)"
            + "([^<]*)(</(?:javaee:)?param-value>)");

    private Examples()
    {
    }

    /** The repository root (surefire sets {@code sipline.root}). */
    public static Path root()
    {
        return Path.of(System.getProperty("sipline.root", "..")).toAbsolutePath().normalize();
    }

    /** An example WAR as the build made it; fails with how to build it when it is missing. */
    public static Path war(final String name)
    {
        final Path war = root().resolve("examples").resolve(name).resolve("target").resolve(name + ".war");
        assertTrue(Files.isRegularFile(war), war + " is missing: the examples build before the container in the "
            + "reactor; run ./mvnw -B verify (or bin/sipline test) from the repository root");
        return war;
    }

    /**
     * A copy of an example WAR in {@code dir} whose {@code WEB-INF/sip.xml} context parameters are replaced by
     * {@code params} (e.g. the b2bua's {@code target} pointed at this test's sipp callee).
     */
    public static Path configured(final String name, final Map<String, String> params, final Path dir)
        throws IOException
    {
        final Path out = dir.resolve(name + ".war");
        Files.createDirectories(dir);
        try (ZipFile in = new ZipFile(war(name).toFile());
            ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(out)))
        {
            for (final Enumeration<? extends ZipEntry> e = in.entries(); e.hasMoreElements(); )
            {
                final ZipEntry entry = e.nextElement();
                byte[] bytes;
                try (InputStream s = in.getInputStream(entry))
                {
                    bytes = s.readAllBytes();
                }
                if ("WEB-INF/sip.xml".equals(entry.getName()))
                {
                    bytes = withParams(new String(bytes, StandardCharsets.UTF_8), params)
                        .getBytes(StandardCharsets.UTF_8);
                }
                zip.putNextEntry(new ZipEntry(entry.getName()));
                zip.write(bytes);
                zip.closeEntry();
            }
        }
        return out;
    }

    private static String withParams(final String sipXml, final Map<String, String> params)
    {
        final Matcher m = PARAM.matcher(sipXml);
        final StringBuilder sb = new StringBuilder();
        int replaced = 0;
        while (m.find())
        {
            final String value = params.get(m.group(2));
            if (null != value)
            {
                replaced++;
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + (null == value ? m.group(3) : value)
                + m.group(4)));
        }
        m.appendTail(sb);
        assertTrue(replaced == params.size(), "not every parameter of " + params + " is in sip.xml:\n" + sipXml);
        return sb.toString();
    }

    /**
     * A sipp scenario of {@code src/test/resources/e2e/}, with {@code @KEY@} placeholders replaced, written to
     * {@code target/e2e/scenarios/}; returns its absolute path.
     */
    public static String scenario(final String resource, final Map<String, String> values) throws IOException
    {
        String text;
        try (InputStream in = Examples.class.getResourceAsStream("/e2e/" + resource))
        {
            assertNotNull(in, "no scenario " + resource);
            text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
        String file = resource;
        for (final Map.Entry<String, String> v : values.entrySet())
        {
            text = text.replace("@" + v.getKey() + "@", v.getValue());
            file = file.replace(".xml", "-" + v.getValue().replace(' ', '_') + ".xml");
        }
        assertTrue(!text.contains("@STATUS@") && !text.contains("@REASON@"), "placeholders left in " + resource);
        final Path out = Path.of("target", "e2e", "scenarios").resolve(file);
        Files.createDirectories(out.getParent());
        Files.writeString(out, text, StandardCharsets.ISO_8859_1);
        return out.toAbsolutePath().toString();
    }
}
