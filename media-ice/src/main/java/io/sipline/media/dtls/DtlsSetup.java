package io.sipline.media.dtls;

import java.util.Locale;

/**
 * The SDP {@code a=setup} attribute values (RFC 4145 §4) and their negotiation for DTLS-SRTP (RFC 5763 §5): the
 * offerer says {@code actpass}; the answerer picks {@code active} (it connects, so it is the DTLS client) or
 * {@code passive} (it is the DTLS server), and SHOULD pick {@code active}. {@code holdconn} puts no connection up
 * and leaves no role.
 *
 * <p>Immutable; thread-safe.
 */
public enum DtlsSetup
{
    /** Connects: the DTLS client. */
    ACTIVE("active"),
    /** Accepts: the DTLS server. */
    PASSIVE("passive"),
    /** Either, as the answerer chooses; what an offer carries (RFC 5763 §5). */
    ACTPASS("actpass"),
    /** No connection now (RFC 4145 §4). */
    HOLDCONN("holdconn");

    private final String sdpValue;

    DtlsSetup(final String sdpValue)
    {
        this.sdpValue = sdpValue;
    }

    /**
     * The value of an {@code a=setup} line, case-insensitively (RFC 4145 §4 token).
     *
     * @param value for example {@code actpass}, without {@code a=setup:}.
     * @return the setup, or null when the token is none of the four.
     */
    public static DtlsSetup parse(final CharSequence value)
    {
        if (null == value)
        {
            return null;
        }
        final String token = value.toString().trim().toLowerCase(Locale.ROOT);
        for (final DtlsSetup setup : values())
        {
            if (setup.sdpValue.equals(token))
            {
                return setup;
            }
        }
        return null;
    }

    /** @return the SDP token, for {@code a=setup:<token>}. */
    public String sdpValue()
    {
        return sdpValue;
    }

    /**
     * What we answer to an offer carrying this setup (RFC 5763 §5): {@code active} to {@code actpass} (the SHOULD
     * of that section) and to {@code passive}; {@code passive} to {@code active}.
     *
     * @return our answer's setup.
     * @throws IllegalArgumentException for an offer of {@code holdconn}, which leaves no DTLS connection to set up.
     */
    public DtlsSetup answer()
    {
        return switch (this)
        {
            case ACTPASS, PASSIVE -> ACTIVE;
            case ACTIVE -> PASSIVE;
            case HOLDCONN -> throw new IllegalArgumentException("a=setup:holdconn offers no DTLS connection");
        };
    }

    /**
     * Our role once this side's setup is settled: {@code active} is the client, {@code passive} the server.
     *
     * @return the role of the side that sent this value.
     * @throws IllegalArgumentException for {@code actpass} or {@code holdconn}, which settle no role.
     */
    public DtlsRole role()
    {
        return switch (this)
        {
            case ACTIVE -> DtlsRole.CLIENT;
            case PASSIVE -> DtlsRole.SERVER;
            default -> throw new IllegalArgumentException("a=setup:" + sdpValue + " settles no DTLS role");
        };
    }

    /**
     * Our role as the offerer (we sent {@code actpass}) from the answer's setup: the answerer's {@code active} makes
     * us the server, its {@code passive} the client (RFC 5763 §5).
     *
     * @param answer the setup of the peer's answer.
     * @return our role.
     * @throws IllegalArgumentException when the answer says {@code actpass} or {@code holdconn}, which an answer
     *                                  must not (RFC 4145 §4).
     */
    public static DtlsRole offererRole(final DtlsSetup answer)
    {
        return switch (answer)
        {
            case ACTIVE -> DtlsRole.SERVER;
            case PASSIVE -> DtlsRole.CLIENT;
            default -> throw new IllegalArgumentException("an answer must say a=setup:active or passive, not " +
                answer.sdpValue);
        };
    }
}
