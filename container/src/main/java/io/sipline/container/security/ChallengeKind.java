package io.sipline.container.security;

/**
 * Which of the two SIP authentication exchanges applies (RFC 3261 §22.2 and §22.3): a UAS challenges with
 * {@code 401} and {@code WWW-Authenticate} and reads {@code Authorization}; a proxy (and, in JSR 289, a servlet
 * whose {@code security-constraint} has {@code <proxy-authentication/>}) challenges with {@code 407} and
 * {@code Proxy-Authenticate} and reads {@code Proxy-Authorization}.
 * <p>
 * Threading: immutable.
 */
public enum ChallengeKind
{
    /** 401 Unauthorized. */
    WWW(401, "Unauthorized", "WWW-Authenticate", "Authorization"),
    /** 407 Proxy Authentication Required. */
    PROXY(407, "Proxy Authentication Required", "Proxy-Authenticate", "Proxy-Authorization");

    private final int status;
    private final String reasonPhrase;
    private final String challengeHeader;
    private final String credentialsHeader;

    ChallengeKind(final int status, final String reasonPhrase, final String challengeHeader,
        final String credentialsHeader)
    {
        this.status = status;
        this.reasonPhrase = reasonPhrase;
        this.challengeHeader = challengeHeader;
        this.credentialsHeader = credentialsHeader;
    }

    /**
     * @return the response status of a challenge (401 or 407).
     */
    public int status()
    {
        return status;
    }

    /**
     * @return the reason phrase of a challenge.
     */
    public String reasonPhrase()
    {
        return reasonPhrase;
    }

    /**
     * @return the header a challenge goes in ({@code WWW-Authenticate} or {@code Proxy-Authenticate}).
     */
    public String challengeHeader()
    {
        return challengeHeader;
    }

    /**
     * @return the header credentials come in ({@code Authorization} or {@code Proxy-Authorization}).
     */
    public String credentialsHeader()
    {
        return credentialsHeader;
    }

    /**
     * @param status a response status.
     * @return the kind for 401 or 407, else {@code null}.
     */
    public static ChallengeKind forStatus(final int status)
    {
        return switch (status)
        {
            case 401 -> WWW;
            case 407 -> PROXY;
            default -> null;
        };
    }
}
