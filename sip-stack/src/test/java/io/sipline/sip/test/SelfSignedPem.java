package io.sipline.sip.test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed certificate and key for TLS tests, made by the JDK's own {@code keytool} (EC P-256, CN=localhost,
 * subjectAltName IP 127.0.0.1, valid two days) into a PKCS#12 store in a directory the test owns, then written out as
 * the PEM files a server is configured with ({@code cert.pem}, PKCS#8 {@code key.pem}). No Bouncy Castle. The child
 * process is waited for with a deadline and destroyed by its handle if it overruns.
 */
public final class SelfSignedPem
{
    private static final char[] PASSWORD = "changeit".toCharArray();

    private final Path certificate;
    private final Path privateKey;
    private final KeyStore store;

    private SelfSignedPem(final Path certificate, final Path privateKey, final KeyStore store)
    {
        this.certificate = certificate;
        this.privateKey = privateKey;
        this.store = store;
    }

    /** Generates into {@code directory} (which the caller owns and deletes). */
    public static SelfSignedPem generate(final Path directory) throws IOException, GeneralSecurityException,
        InterruptedException
    {
        return generate(directory, "", "CN=localhost", "ip:127.0.0.1,dns:localhost");
    }

    /**
     * Generates a pair with a chosen subject and subjectAltName (RFC 5922 tests: {@code uri:sip:example.com},
     * {@code dns:...}, or none) into {@code directory}, its files named with {@code prefix}
     * ({@code <prefix>cert.pem}, {@code <prefix>key.pem}).
     *
     * @param san keytool's SAN list ("uri:sip:a.example.com,dns:b.example.com"), or null for no subjectAltName.
     */
    public static SelfSignedPem generate(final Path directory, final String prefix, final String dname,
        final String san) throws IOException, GeneralSecurityException, InterruptedException
    {
        final Path p12 = directory.resolve(prefix + "server.p12");
        final Path log = directory.resolve(prefix + "keytool.log");
        final Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        final java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(keytool.toString(),
            "-genkeypair", "-alias", "sip", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
            "-dname", dname));
        if (null != san)
        {
            command.add("-ext");
            command.add("SAN=" + san);
        }
        command.addAll(java.util.List.of("-keystore", p12.toString(), "-storetype", "PKCS12",
            "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD)));
        final Process process = new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
        try
        {
            if (!process.waitFor(60, TimeUnit.SECONDS) || 0 != process.exitValue())
            {
                throw new IOException("keytool failed: " + Files.readString(log));
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
        final X509Certificate cert = (X509Certificate)store.getCertificate("sip");
        final PrivateKey key = (PrivateKey)store.getKey("sip", PASSWORD);
        final Path certificate = directory.resolve(prefix + "cert.pem");
        final Path privateKey = directory.resolve(prefix + "key.pem");
        Files.writeString(certificate, pem("CERTIFICATE", cert.getEncoded()), StandardCharsets.US_ASCII);
        Files.writeString(privateKey, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
        return new SelfSignedPem(certificate, privateKey, store);
    }

    /** The PEM certificate (also what a client trusts). */
    public Path certificate()
    {
        return certificate;
    }

    /** The PEM PKCS#8 private key. */
    public Path privateKey()
    {
        return privateKey;
    }

    /** The certificate itself. */
    public X509Certificate x509() throws GeneralSecurityException
    {
        return (X509Certificate)store.getCertificate("sip");
    }

    /** A client context that trusts exactly this certificate. */
    public SSLContext clientContext() throws GeneralSecurityException
    {
        final TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        final SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    /** A server context holding this certificate and key. */
    public SSLContext serverContext() throws GeneralSecurityException
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
