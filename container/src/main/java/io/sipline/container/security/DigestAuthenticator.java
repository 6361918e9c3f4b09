package io.sipline.container.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongSupplier;

import io.sipline.container.security.AuthResult.Outcome;

/**
 * The server side of SIP digest authentication (RFC 3261 §22, RFC 2617 with {@code qop=auth}, RFC 8760): checks
 * the {@code Authorization} or {@code Proxy-Authorization} values of a request against a {@link UserRealm} for one
 * realm, and makes the challenges of a {@code 401}/{@code 407}.
 * <p>
 * <b>Challenges</b> ({@link #challenges(boolean)}): one per offered algorithm, SHA-256 before MD5 (RFC 8760 §2.4:
 * "the UAS ... MUST add [challenges] in order of preference"), each
 * {@code Digest realm="R", qop="auth", algorithm=A, nonce="N", opaque="O"} plus {@code stale=true} when asked
 * (RFC 2617 §3.2.1). All challenges of one response share one fresh nonce. The checks of credentials, in order, and
 * their {@link Outcome}s are on {@link #authenticate}.
 * <p>
 * Threading: thread-safe; one instance per application realm, shared by every shard. Each call hashes a few short
 * strings (no caching of HA1 across calls).
 */
public final class DigestAuthenticator
{
    private final String realm;
    private final UserRealm users;
    private final Settings settings;
    private final LongSupplier clockMs;
    private final Nonces nonces;
    private final NonceCountTracker counts;
    private final String challengeSuffix;

    /**
     * @param realm    the realm (JSR 289 {@code login-config/realm-name}).
     * @param users    the users.
     * @param settings lifetime, bounds, algorithms.
     * @param clockMs  the wall clock in milliseconds ({@code System::currentTimeMillis}; tests advance their own).
     * @param random   the source of nonce ids and, when {@link Settings#secret()} is {@code null}, of the secret.
     */
    public DigestAuthenticator(
        final String realm,
        final UserRealm users,
        final Settings settings,
        final LongSupplier clockMs,
        final SecureRandom random)
    {
        this.realm = Objects.requireNonNull(realm, "realm");
        this.users = Objects.requireNonNull(users, "users");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        byte[] secret = settings.secret();
        if (null == secret)
        {
            secret = new byte[32];
            random.nextBytes(secret);
        }
        this.nonces = new Nonces(secret, realm, random);
        this.counts = new NonceCountTracker(settings.maxTrackedNonces(), settings.nonceLifetime().toMillis(),
            clockMs.getAsLong());
        this.challengeSuffix = ", opaque=" + AuthParams.quote(nonces.opaque());
    }

    /**
     * @param realm the realm.
     * @param users the users.
     * @return an authenticator with {@link Settings#DEFAULTS}, the system clock and a new {@link SecureRandom}.
     */
    public static DigestAuthenticator create(final String realm, final UserRealm users)
    {
        return new DigestAuthenticator(realm, users, Settings.DEFAULTS, System::currentTimeMillis, new SecureRandom());
    }

    /**
     * @return the realm.
     */
    public String realm()
    {
        return realm;
    }

    /**
     * @param stale whether to add {@code stale=true}.
     * @return the challenge header values to add to a 401/407, one per offered algorithm, in order of preference.
     */
    public List<String> challenges(final boolean stale)
    {
        final String nonce = nonces.mint(clockMs.getAsLong());
        final List<String> values = new ArrayList<>(settings.algorithms().size());
        for (final DigestAlgorithm algorithm : settings.algorithms())
        {
            values.add("Digest realm=" + AuthParams.quote(realm) + ", qop=\"auth\", algorithm=" + algorithm.token() +
                ", nonce=\"" + nonce + "\"" + challengeSuffix + (stale ? ", stale=true" : ""));
        }
        return values;
    }

    /**
     * Checks, in order: the credentials for this realm with scheme Digest (none: {@link Outcome#MISSING}); their syntax
     * and parameters ({@code username}, {@code nonce}, {@code uri}, {@code response}; with {@code qop=auth} also
     * {@code cnonce} and an 8-hex-digit {@code nc} above 0; an offered {@code algorithm}; {@code opaque}), and
     * {@code uri} equal to the Request-URI (RFC 2617 §3.2.2.5, RFC 3261 §22.4): else {@link Outcome#MALFORMED}; the
     * response digest against the user's HA1, compared with {@link MessageDigest#isEqual} (unknown users cost the same
     * hash): else {@link Outcome#BAD_CREDENTIALS}; the nonce (ours, this realm, younger than the lifetime) and the
     * opaque value: else {@link Outcome#STALE} (the digest was right); the nonce count ({@link NonceCountTracker}):
     * else {@link Outcome#REPLAY}, or {@link Outcome#STALE} when its state was forgotten. Credentials without
     * {@code qop} (the RFC 2069 form RFC 3261 still allows) have no nonce count to protect them: they are refused as
     * malformed unless {@link Settings#allowNoQop()} is set.
     *
     * @param method      the request method (the start line's, e.g. {@code INVITE}).
     * @param requestUri  the Request-URI as written in the start line.
     * @param credentials the values of the {@code Authorization} (401) or {@code Proxy-Authorization} (407)
     *                    headers, in order; {@code null} or empty when there are none.
     * @return the outcome; never {@code null}, never throws for any header content.
     */
    public AuthResult authenticate(final String method, final String requestUri, final List<String> credentials)
    {
        if (null == credentials || credentials.isEmpty())
        {
            return AuthResult.failed(Outcome.MISSING, "no credentials");
        }
        AuthParams mine = null;
        String syntaxError = null;
        for (final String value : credentials)
        {
            final AuthParams params = AuthParams.parse(value);
            if (!params.ok())
            {
                // Other schemes (Basic token68, Bearer...) are not ours to judge; a broken Digest value is.
                if (null == syntaxError && isDigestScheme(value))
                {
                    syntaxError = params.error();
                }
            }
            else if (params.isDigest() && realm.equals(params.get("realm")))
            {
                mine = params;
                break;
            }
        }
        if (null == mine)
        {
            return null == syntaxError ?
                AuthResult.failed(Outcome.MISSING, "no Digest credentials for realm " + realm) :
                AuthResult.failed(Outcome.MALFORMED, "unreadable credentials: " + syntaxError);
        }
        return check(method, requestUri, mine);
    }

    /**
     * @return the number of nonces whose counts are tracked (see {@link NonceCountTracker} for the bound).
     */
    public int trackedNonces()
    {
        return counts.size();
    }

    private AuthResult check(final String method, final String requestUri, final AuthParams credentials)
    {
        final String username = credentials.get("username");
        final String nonce = credentials.get("nonce");
        final String uri = credentials.get("uri");
        final String response = credentials.get("response");
        if (null == username || null == nonce || null == uri || null == response)
        {
            return AuthResult.failed(Outcome.MALFORMED, "credentials need username, nonce, uri and response");
        }
        final DigestAlgorithm algorithm = DigestAlgorithm.fromToken(credentials.get("algorithm"));
        if (null == algorithm || !settings.algorithms().contains(algorithm))
        {
            return AuthResult.failed(Outcome.MALFORMED, "algorithm not offered");
        }
        final String qop = credentials.get("qop");
        final String cnonce = credentials.get("cnonce");
        final String nc = credentials.get("nc");
        long count = 0;
        if (null == qop)
        {
            if (!settings.allowNoQop())
            {
                return AuthResult.failed(Outcome.MALFORMED, "qop=auth required");
            }
        }
        else
        {
            if (!"auth".equalsIgnoreCase(qop))
            {
                return AuthResult.failed(Outcome.MALFORMED, "qop not offered (only auth)");
            }
            if (null == cnonce || cnonce.isEmpty())
            {
                return AuthResult.failed(Outcome.MALFORMED, "qop=auth needs a cnonce");
            }
            count = parseNonceCount(nc);
            if (count <= 0)
            {
                return AuthResult.failed(Outcome.MALFORMED, "nc must be 8 hex digits above 0");
            }
        }
        if (!uri.equals(requestUri))
        {
            return AuthResult.failed(Outcome.MALFORMED, "uri does not match the Request-URI");
        }
        if (response.length() != algorithm.hexLength())
        {
            return AuthResult.failed(Outcome.MALFORMED, "response must be " + algorithm.hexLength() + " hex digits");
        }
        final String storedHa1 = users.ha1(username, realm, algorithm);
        // An unknown user costs the same hashing as a known one.
        final String ha1 = null == storedHa1 ? algorithm.ha1(username, realm, "") : storedHa1;
        final String expected = algorithm.response(ha1, nonce, null == qop ? null : nc, cnonce,
            null == qop ? null : "auth", method, uri);
        final boolean digestMatches = MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
            response.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
        if (null == storedHa1 || !digestMatches)
        {
            return AuthResult.failed(Outcome.BAD_CREDENTIALS, null == storedHa1 ?
                "unknown user or no " + algorithm.token() + " HA1 for it" : "wrong password");
        }
        final String opaque = credentials.get("opaque");
        if (null == opaque)
        {
            return AuthResult.failed(Outcome.MALFORMED, "opaque not echoed");
        }
        final long nowMs = clockMs.getAsLong();
        final Nonces.Decoded decoded = nonces.decode(nonce);
        if (null == decoded || !MessageDigest.isEqual(nonces.opaque().getBytes(StandardCharsets.US_ASCII),
            opaque.getBytes(StandardCharsets.UTF_8)))
        {
            return AuthResult.failed(Outcome.STALE, "nonce or opaque not issued by this server");
        }
        final long ageMs = nowMs - decoded.issuedMs();
        if (ageMs >= settings.nonceLifetime().toMillis() || ageMs < -settings.nonceLifetime().toMillis())
        {
            return AuthResult.failed(Outcome.STALE, "nonce expired");
        }
        if (null != qop)
        {
            switch (counts.accept(decoded.id(), decoded.issuedMs(), count, nowMs))
            {
                case REPLAYED:
                    return AuthResult.failed(Outcome.REPLAY, "nonce count used before");
                case FORGOTTEN:
                    return AuthResult.failed(Outcome.STALE, "nonce state forgotten");
                case ACCEPTED:
                default:
                    break;
            }
        }
        return AuthResult.ok(new SipPrincipal(username, realm, users.roles(username, realm)));
    }

    private static boolean isDigestScheme(final String value)
    {
        final String text = null == value ? "" : value.stripLeading();
        return text.regionMatches(true, 0, "Digest", 0, 6) && (6 == text.length() ||
            !AuthParams.isTokenChar(text.charAt(6)));
    }

    private static long parseNonceCount(final String nc)
    {
        if (null == nc || 8 != nc.length())
        {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < 8; i++)
        {
            final int digit = Character.digit(nc.charAt(i), 16);
            if (digit < 0)
            {
                return -1;
            }
            value = (value << 4) | digit;
        }
        return value;
    }

    /**
     * How an authenticator behaves.
     * <p>
     * Threading: an immutable record (the secret is copied in and out).
     *
     * @param nonceLifetime    how long a nonce is accepted; afterwards a right digest gets {@code stale=true}.
     * @param maxTrackedNonces the most nonces whose counts are tracked (see {@link NonceCountTracker}).
     * @param algorithms       the algorithms offered, in order of preference; not empty. Clients that read only
     *                         the first challenge and know only MD5 (sipp 3.6.1: "authentication must use MD5 or
     *                         AKAv1-MD5", see {@code DigestSippInteropTest}) need MD5 first, e.g.
     *                         {@code List.of(MD5, SHA_256)}.
     * @param allowNoQop       whether to accept RFC 2069 credentials without {@code qop} (no replay protection).
     * @param secret           the nonce HMAC key (at least 16 bytes; the same in every instance that must accept
     *                         each other's nonces), or {@code null} for a random one per instance.
     */
    public record Settings(
        Duration nonceLifetime,
        int maxTrackedNonces,
        List<DigestAlgorithm> algorithms,
        boolean allowNoQop,
        byte[] secret)
    {
        /** 5 minutes, 65,536 tracked nonces, SHA-256 then MD5, qop required, random secret. */
        public static final Settings DEFAULTS = new Settings(Duration.ofMinutes(5), 65_536,
            List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5), false, null);

        /** Checks the values and freezes the list. */
        public Settings
        {
            if (nonceLifetime.toMillis() < 1)
            {
                throw new IllegalArgumentException("the nonce lifetime must be at least 1 ms");
            }
            if (maxTrackedNonces < 1)
            {
                throw new IllegalArgumentException("maxTrackedNonces must be positive");
            }
            algorithms = List.copyOf(algorithms);
            if (algorithms.isEmpty() || algorithms.size() != algorithms.stream().distinct().count())
            {
                throw new IllegalArgumentException("algorithms must be distinct and not empty");
            }
            if (null != secret && secret.length < 16)
            {
                throw new IllegalArgumentException("the nonce secret must have at least 16 bytes");
            }
            secret = null == secret ? null : secret.clone();
        }

        @Override
        public byte[] secret()
        {
            return null == secret ? null : secret.clone();
        }

        /**
         * @param lifetime the nonce lifetime.
         * @return these settings with that lifetime.
         */
        public Settings withNonceLifetime(final Duration lifetime)
        {
            return new Settings(lifetime, maxTrackedNonces, algorithms, allowNoQop, secret);
        }

        /**
         * @param max the most tracked nonces.
         * @return these settings with that bound.
         */
        public Settings withMaxTrackedNonces(final int max)
        {
            return new Settings(nonceLifetime, max, algorithms, allowNoQop, secret);
        }

        /**
         * @param offered the algorithms offered, in order of preference.
         * @return these settings with those algorithms.
         */
        public Settings withAlgorithms(final List<DigestAlgorithm> offered)
        {
            return new Settings(nonceLifetime, maxTrackedNonces, offered, allowNoQop, secret);
        }

        /**
         * @param allow whether to accept credentials without qop.
         * @return these settings with that choice.
         */
        public Settings withAllowNoQop(final boolean allow)
        {
            return new Settings(nonceLifetime, maxTrackedNonces, algorithms, allow, secret);
        }

        /**
         * @param key the nonce HMAC key.
         * @return these settings with that key.
         */
        public Settings withSecret(final byte[] key)
        {
            return new Settings(nonceLifetime, maxTrackedNonces, algorithms, allowNoQop, key);
        }
    }
}
