package io.sipline.container.security;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The UAC side of SIP digest authentication (RFC 3261 §22.2/§22.3, RFC 2617 §3.2.2, RFC 8760 §2.4): from the
 * challenges of a 401 ({@code WWW-Authenticate}) or 407 ({@code Proxy-Authenticate}), the method and the
 * Request-URI of the request to resubmit, computes one {@code Authorization}/{@code Proxy-Authorization} value per
 * realm the {@link CredentialSource} has credentials for (several proxies may challenge one request, RFC 3261
 * §22.3). This is {@code SipServletRequest.addAuthHeader} of JSR 289.
 * <p>
 * Per realm, the challenge answered is the SHA-256 one when offered, else the first the client supports in the
 * server's order (RFC 8760 §2.4: the UAC uses the topmost challenge it supports): MD5, or SHA-512-256. {@code -sess}
 * algorithms, unknown ones and challenges whose {@code qop} lacks {@code auth} are skipped. With {@code qop=auth}
 * the answer has a fresh {@code cnonce} (16 random bytes, base64url) and the nonce count of this client for that
 * nonce (kept for the last {@value #TRACKED_NONCES} nonces); without {@code qop} it is the RFC 2069 form.
 * {@code opaque} is echoed and {@code algorithm} repeated when the challenge had them.
 * <p>
 * Threading: thread-safe; one per container is enough.
 */
public final class DigestClient
{
    /** How many (realm, nonce) counters are kept. */
    public static final int TRACKED_NONCES = 256;

    private final Supplier<String> cnonces;
    private final Map<String, long[]> counts = new LinkedHashMap<>(16, 0.75f, true)
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, long[]> eldest)
        {
            return size() > TRACKED_NONCES;
        }
    };

    /** A client with random cnonces. */
    public DigestClient()
    {
        this(randomCnonces(new SecureRandom()));
    }

    /**
     * @param cnonces the source of client nonces (tests give fixed ones).
     */
    public DigestClient(final Supplier<String> cnonces)
    {
        this.cnonces = Objects.requireNonNull(cnonces, "cnonces");
    }

    /**
     * @param status a challenge status.
     * @return the header credentials for it go in ({@code Authorization} for 401, {@code Proxy-Authorization} for
     *     407).
     * @throws IllegalArgumentException for another status.
     */
    public static String credentialsHeader(final int status)
    {
        return kind(status).credentialsHeader();
    }

    /**
     * @param status a challenge status.
     * @return the header its challenges are in ({@code WWW-Authenticate} for 401, {@code Proxy-Authenticate} for
     *     407).
     * @throws IllegalArgumentException for another status.
     */
    public static String challengeHeader(final int status)
    {
        return kind(status).challengeHeader();
    }

    /**
     * @param status     the challenge's status, 401 or 407.
     * @param challenges the values of its challenge header, in order.
     * @param method     the method of the request to resubmit.
     * @param requestUri its Request-URI, as it will be written in the start line.
     * @param source     the credentials per realm.
     * @return the credentials header values to add, one per realm answered, in the order of the challenges; empty
     *     when no challenge could be answered. Never throws for any challenge content.
     * @throws IllegalArgumentException when the status is not 401 or 407.
     */
    public List<String> answer(
        final int status,
        final List<String> challenges,
        final String method,
        final String requestUri,
        final CredentialSource source)
    {
        kind(status);
        final Map<String, AuthParams> chosen = new LinkedHashMap<>();
        for (final String value : null == challenges ? List.<String>of() : challenges)
        {
            final AuthParams challenge = AuthParams.parse(value);
            if (!usable(challenge))
            {
                continue;
            }
            final String realm = challenge.get("realm");
            final AuthParams previous = chosen.get(realm);
            if (null == previous || (DigestAlgorithm.SHA_256 == algorithm(challenge) &&
                DigestAlgorithm.SHA_256 != algorithm(previous)))
            {
                chosen.put(realm, challenge);
            }
        }
        final List<String> answers = new ArrayList<>(chosen.size());
        for (final AuthParams challenge : chosen.values())
        {
            final Credentials credentials = source.credentials(status, challenge.get("realm"));
            if (null != credentials)
            {
                answers.add(authorization(challenge, credentials, method, requestUri));
            }
        }
        return answers;
    }

    private String authorization(final AuthParams challenge, final Credentials credentials, final String method,
        final String uri)
    {
        final DigestAlgorithm algorithm = algorithm(challenge);
        final String realm = challenge.get("realm");
        final String nonce = challenge.get("nonce");
        final boolean qop = null != challenge.get("qop");
        final String ha1 = algorithm.ha1(credentials.username(), realm, credentials.password());
        final StringBuilder value = new StringBuilder(320)
            .append("Digest username=").append(AuthParams.quote(credentials.username()))
            .append(", realm=").append(AuthParams.quote(realm))
            .append(", nonce=").append(AuthParams.quote(nonce))
            .append(", uri=").append(AuthParams.quote(uri));
        final String response;
        String cnonce = null;
        String nc = null;
        if (qop)
        {
            cnonce = cnonces.get();
            nc = String.format(Locale.ROOT, "%08x", nextCount(realm, nonce));
            response = algorithm.response(ha1, nonce, nc, cnonce, "auth", method, uri);
        }
        else
        {
            response = algorithm.response(ha1, nonce, null, null, null, method, uri);
        }
        value.append(", response=\"").append(response).append('"');
        if (null != challenge.get("algorithm"))
        {
            value.append(", algorithm=").append(algorithm.token());
        }
        if (qop)
        {
            value.append(", cnonce=").append(AuthParams.quote(cnonce));
        }
        final String opaque = challenge.get("opaque");
        if (null != opaque)
        {
            value.append(", opaque=").append(AuthParams.quote(opaque));
        }
        if (qop)
        {
            value.append(", qop=auth, nc=").append(nc);
        }
        return value.toString();
    }

    private long nextCount(final String realm, final String nonce)
    {
        synchronized (counts)
        {
            final long[] count = counts.computeIfAbsent(realm + '\n' + nonce, key -> new long[1]);
            count[0] = count[0] >= 0xffff_ffffL ? 1 : count[0] + 1;
            return count[0];
        }
    }

    private static boolean usable(final AuthParams challenge)
    {
        if (!challenge.ok() || !challenge.isDigest() || null == challenge.get("realm") ||
            null == challenge.get("nonce") || null == algorithm(challenge))
        {
            return false;
        }
        final String qop = challenge.get("qop");
        if (null == qop)
        {
            return true;
        }
        for (final String option : qop.split(","))
        {
            if ("auth".equalsIgnoreCase(option.strip()))
            {
                return true;
            }
        }
        return false;
    }

    private static DigestAlgorithm algorithm(final AuthParams challenge)
    {
        return DigestAlgorithm.fromToken(challenge.get("algorithm"));
    }

    private static ChallengeKind kind(final int status)
    {
        final ChallengeKind kind = ChallengeKind.forStatus(status);
        if (null == kind)
        {
            throw new IllegalArgumentException("status " + status + " is not a challenge (401 or 407)");
        }
        return kind;
    }

    private static Supplier<String> randomCnonces(final SecureRandom random)
    {
        final Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
        return () ->
        {
            final byte[] bytes = new byte[16];
            random.nextBytes(bytes);
            return encoder.encodeToString(bytes);
        };
    }
}
