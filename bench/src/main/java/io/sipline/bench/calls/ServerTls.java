package io.sipline.bench.calls;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A TLS listener for a Sipline server a bench command starts: a self-signed ECDSA P-256 certificate for 127.0.0.1
 * made by {@code openssl} in the result directory, and a free port, as {@code run} options.
 *
 * <p>Stateless; the harness's main thread.
 */
public final class ServerTls
{
    private ServerTls()
    {
    }

    /**
     * Makes the certificate and adds {@code --tls-port}, {@code --tls-cert} and {@code --tls-key} to {@code args}.
     *
     * @param dir    the result directory; the files are {@code PREFIX-cert.pem} and {@code PREFIX-key.pem}.
     * @param prefix the command's name, e.g. {@code "fuzz"}.
     * @param args   the server's options, added to.
     * @return the TLS port, or 0 when openssl could not make a certificate (nothing is added then).
     */
    public static int addArgs(final Path dir, final String prefix, final List<String> args)
        throws IOException, InterruptedException
    {
        final Path cert = dir.resolve(prefix + "-cert.pem");
        final Path key = dir.resolve(prefix + "-key.pem");
        final Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.toString(), "-out", cert.toString(), "-days",
            "2", "-subj", "/CN=127.0.0.1").redirectErrorStream(true).redirectOutput(dir.resolve("openssl.out")
            .toFile()).start();
        if (!p.waitFor(30, TimeUnit.SECONDS) || 0 != p.exitValue())
        {
            p.destroyForcibly();
            return 0;
        }
        final int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.ofLiteral("127.0.0.1")))
        {
            port = probe.getLocalPort();
        }
        args.addAll(List.of("--tls-port", Integer.toString(port), "--tls-cert", cert.toString(), "--tls-key",
            key.toString()));
        return port;
    }
}
