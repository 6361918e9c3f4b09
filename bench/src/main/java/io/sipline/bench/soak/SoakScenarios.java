package io.sipline.bench.soak;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.StringJoiner;

import io.sipline.bench.calls.Scenarios;

/**
 * The scenario files of a soak run, written into its directory: sipp's built-in {@code uac} (a call answered 200,
 * held, ended by BYE), {@code busy.xml} (answered 486), {@code cancel.xml} (CANCELled while it rings),
 * {@code register.xml} (a registration refresh of one of {@code users} users, from the injection file
 * {@code users.csv}) and the far end {@code uas.xml}, which picks each call's answer from its To user. The last four
 * are resources of this package. Stateless.
 *
 * @param uac      the answered calls' caller
 * @param busy     the failing calls' caller
 * @param cancel   the CANCELled calls' caller
 * @param register the registrations' client
 * @param users    the injection file of {@code register}: user and Expires per line
 * @param uas      the far end
 */
public record SoakScenarios(Path uac, Path busy, Path cancel, Path register, Path users, Path uas)
{
    /** Writes the files into {@code dir}; {@code users} users registering for {@code expires} seconds each. */
    public static SoakScenarios write(final Path dir, final int users, final int expires)
        throws IOException, InterruptedException
    {
        Files.createDirectories(dir);
        final Path uac = dir.resolve("uac.xml");
        Files.writeString(uac, Scenarios.builtIn("uac"), StandardCharsets.ISO_8859_1);
        final StringJoiner csv = new StringJoiner("\n", "SEQUENTIAL\n", "\n");
        for (int i = 0; i < users; i++)
        {
            csv.add("soak" + i + ";" + expires);
        }
        final Path usersFile = Files.writeString(dir.resolve("users.csv"), csv.toString(), StandardCharsets.US_ASCII);
        return new SoakScenarios(uac, resource(dir, "busy.xml"), resource(dir, "cancel.xml"),
            resource(dir, "register.xml"), usersFile, resource(dir, "uas.xml"));
    }

    private static Path resource(final Path dir, final String name) throws IOException
    {
        try (InputStream in = SoakScenarios.class.getResourceAsStream(name))
        {
            if (null == in)
            {
                throw new IOException("missing resource " + name + " of " + SoakScenarios.class.getPackageName());
            }
            final Path file = dir.resolve(name);
            Files.write(file, in.readAllBytes());
            return file;
        }
    }
}
