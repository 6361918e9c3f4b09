package io.sipline.container.dispatch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A self-signed EC certificate for 127.0.0.1 (CN=localhost, subjectAltName IP 127.0.0.1 and DNS localhost) made by
 * the JDK's {@code keytool} in a directory the test owns, as the PEM pair the stack's TLS listener is configured with
 * (and trusts for its outbound connections) and as a server context for a raw TLS peer. The keytool process is waited
 * for with a deadline and destroyed by its handle.
 */
public final class TestCertificate
{
    private static final char[] PASSWORD = "changeit".toCharArray();

    public final Path certificate;
    public final Path privateKey;
    private final KeyStore store;

    private TestCertificate(final Path certificate, final Path privateKey, final KeyStore store)
    {
        this.certificate = certificate;
        this.privateKey = privateKey;
        this.store = store;
    }

    public static TestCertificate generate(final Path directory) throws IOException, GeneralSecurityException,
        InterruptedException
    {
        final Path p12 = directory.resolve("pair.p12");
        final Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        final Process process = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "sip",
            "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2", "-dname", "CN=localhost",
            "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-keystore", p12.toString(), "-storetype", "PKCS12",
            "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD)))
            .redirectErrorStream(true).redirectOutput(directory.resolve("keytool.log").toFile()).start();
        try
        {
            if (!process.waitFor(60, TimeUnit.SECONDS) || 0 != process.exitValue())
            {
                throw new IOException("keytool failed: " + Files.readString(directory.resolve("keytool.log")));
            }
        }
        finally
        {
            process.destroyForcibly();
        }
        final KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12))
        {
            store.load(in, PASSWORD);
        }
        final Path certificate = Files.writeString(directory.resolve("cert.pem"),
            pem("CERTIFICATE", store.getCertificate("sip").getEncoded()), StandardCharsets.US_ASCII);
        final Path privateKey = Files.writeString(directory.resolve("key.pem"),
            pem("PRIVATE KEY", store.getKey("sip", PASSWORD).getEncoded()), StandardCharsets.US_ASCII);
        return new TestCertificate(certificate, privateKey, store);
    }

    /** A server context holding the certificate and its key. */
    SSLContext serverContext() throws GeneralSecurityException
    {
        final KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, PASSWORD);
        final SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }

    private static String pem(final String type, final byte[] der)
    {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
            + "\n-----END " + type + "-----\n";
    }
}
