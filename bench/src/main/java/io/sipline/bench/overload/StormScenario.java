package io.sipline.bench.overload;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.StringJoiner;

/**
 * The caller of a registration storm ({@code bench overload --register-storm}): every device of a network registering
 * again at once, as after an outage. One REGISTER per sipp call, each from the next of {@code users} distinct users
 * of an injection file ({@code -inf}, in turn), answered {@code 200} by the registrar or refused {@code 503}; the 503
 * must carry {@code Retry-After} (checked as {@link SurgeScenario} checks it). Immutable.
 *
 * @param scenario the sipp scenario ({@code storm-register.xml})
 * @param users    its injection file: user and Expires per line
 */
record StormScenario(Path scenario, Path users)
{
    /** Each registration's Expires: longer than any run, so no refresh falls in it. */
    static final int EXPIRES_S = 3600;

    /** Writes the scenario and the injection file of {@code users} users into {@code dir}. */
    static StormScenario write(final Path dir, final int users) throws IOException
    {
        Files.createDirectories(dir);
        final StringJoiner csv = new StringJoiner("\n", "SEQUENTIAL\n", "\n");
        for (int i = 0; i < users; i++)
        {
            csv.add("storm" + i + ";" + EXPIRES_S);
        }
        final Path usersFile = Files.writeString(dir.resolve("storm-users.csv"), csv.toString(),
            StandardCharsets.US_ASCII);
        try (InputStream in = StormScenario.class.getResourceAsStream("storm-register.xml"))
        {
            if (null == in)
            {
                throw new IOException("missing resource storm-register.xml of " + StormScenario.class.getPackageName());
            }
            final Path file = dir.resolve("storm-register.xml");
            Files.write(file, in.readAllBytes());
            return new StormScenario(file, usersFile);
        }
    }
}
