package io.sipline.media.ice;

/**
 * The four ICE candidate types (RFC 8445 §5.1.1) with the type preferences recommended by §5.1.2.2 and their SDP
 * names (RFC 8839 §5.1 {@code cand-type}).
 *
 * <p>Immutable constants; thread-safe.
 */
public enum IceCandidateType
{
    /** A host candidate: an address on a local interface (§5.1.1.1). */
    HOST("host", 126),
    /** A server-reflexive candidate learnt from a STUN/TURN server (§5.1.1.2). */
    SERVER_REFLEXIVE("srflx", 100),
    /** A peer-reflexive candidate learnt from a connectivity check (§7.2.5.3.1). */
    PEER_REFLEXIVE("prflx", 110),
    /** A relayed candidate allocated on a TURN server (§5.1.1.2). */
    RELAYED("relay", 0);

    private static final IceCandidateType[] VALUES = values();

    private final String sdpName;
    private final int recommendedTypePreference;

    IceCandidateType(final String sdpName, final int recommendedTypePreference)
    {
        this.sdpName = sdpName;
        this.recommendedTypePreference = recommendedTypePreference;
    }

    /**
     * @return the SDP {@code cand-type} token ({@code host}, {@code srflx}, {@code prflx}, {@code relay}).
     */
    public String sdpName()
    {
        return sdpName;
    }

    /**
     * @return the type preference RFC 8445 §5.1.2.2 recommends: 126 host, 110 prflx, 100 srflx, 0 relay.
     */
    public int recommendedTypePreference()
    {
        return recommendedTypePreference;
    }

    /**
     * The type named by an SDP token, compared case-sensitively as RFC 8839 writes them.
     *
     * @param text  characters holding the token.
     * @param start first index.
     * @param end   index after the last.
     * @return the type, or {@code null} for an unknown (extension) type, which RFC 8839 §5.1 says to ignore.
     */
    public static IceCandidateType fromSdp(final CharSequence text, final int start, final int end)
    {
        for (final IceCandidateType type : VALUES)
        {
            if (IceText.regionEquals(text, start, end, type.sdpName))
            {
                return type;
            }
        }
        return null;
    }
}
