package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The registrar example deployed beside a B2BUA example on the Sipline under test: its WAR and a DAR sending REGISTER
 * to the registrar and INVITE to the B2BUA, as {@code bin/sipline run} options. Used by the benchmarks that mix
 * registrations with calls ({@code bench soak}, the registration storm of {@code bench overload}). Stateless.
 */
public final class RegistrarDeployment
{
    private RegistrarDeployment()
    {
    }

    /**
     * @param root the repository root (the registrar's WAR is built under it).
     * @param dir  where the DAR file is written.
     * @param app  the B2BUA example that INVITEs go to.
     * @return the {@code --deploy} and {@code --dar} options.
     * @throws IOException when the registrar is not built, or the DAR cannot be written.
     */
    public static List<String> serverArgs(final Path root, final Path dir, final String app) throws IOException
    {
        final Path war = root.resolve("examples/registrar/target/registrar.war");
        if (!Files.isRegularFile(war))
        {
            throw new IOException("the registrar example is not built: " + war + " is missing (./mvnw -B -q "
                + "-DskipTests -pl examples/registrar -am package)");
        }
        final Path dar = Files.writeString(dir.resolve("registrar-dar.properties"),
            "REGISTER: (\"registrar\", \"DAR:To\", \"TERMINATING\", \"\", \"NO_ROUTE\", \"0\")\n"
            + "INVITE: (\"" + app + "\", \"DAR:From\", \"ORIGINATING\", \"\", \"NO_ROUTE\", \"0\")\n",
            StandardCharsets.US_ASCII);
        return List.of("--deploy", war.toString(), "--dar", dar.toString());
    }
}
