package io.sipline.media.stun;

/**
 * STUN attribute types (RFC 8489 §18.3, RFC 8445 §16.1, RFC 8656 §18) and the set of comprehension-required types
 * this codec understands.
 *
 * <p>Types 0x0000-0x7FFF are comprehension-required: an agent that does not understand one cannot process the
 * message (RFC 8489 §15, §6.3.1). Types 0x8000-0xFFFF are comprehension-optional and are ignored when unknown.
 *
 * <p>Stateless; thread-safe.
 */
public final class StunAttributeType
{
    // Comprehension-required, RFC 8489 §18.3.1.
    /** MAPPED-ADDRESS, §14.1. */
    public static final int MAPPED_ADDRESS = 0x0001;
    /** USERNAME, §14.3. */
    public static final int USERNAME = 0x0006;
    /** MESSAGE-INTEGRITY, §14.5. */
    public static final int MESSAGE_INTEGRITY = 0x0008;
    /** ERROR-CODE, §14.8. */
    public static final int ERROR_CODE = 0x0009;
    /** UNKNOWN-ATTRIBUTES, §14.13. */
    public static final int UNKNOWN_ATTRIBUTES = 0x000A;
    /** REALM, §14.9. */
    public static final int REALM = 0x0014;
    /** NONCE, §14.10. */
    public static final int NONCE = 0x0015;
    /** MESSAGE-INTEGRITY-SHA256, §14.6. */
    public static final int MESSAGE_INTEGRITY_SHA256 = 0x001C;
    /** PASSWORD-ALGORITHM, §14.12. */
    public static final int PASSWORD_ALGORITHM = 0x001D;
    /** USERHASH, §14.4. */
    public static final int USERHASH = 0x001E;
    /** XOR-MAPPED-ADDRESS, §14.2. */
    public static final int XOR_MAPPED_ADDRESS = 0x0020;

    // Comprehension-required, RFC 8445 §16.1 (ICE).
    /** PRIORITY: 32-bit candidate priority. */
    public static final int PRIORITY = 0x0024;
    /** USE-CANDIDATE: no value. */
    public static final int USE_CANDIDATE = 0x0025;

    // Comprehension-required, RFC 8656 §18 (TURN); read as spans, understood only by a TURN-aware set.
    /** CHANNEL-NUMBER. */
    public static final int CHANNEL_NUMBER = 0x000C;
    /** LIFETIME. */
    public static final int LIFETIME = 0x000D;
    /** XOR-PEER-ADDRESS. */
    public static final int XOR_PEER_ADDRESS = 0x0012;
    /** DATA. */
    public static final int DATA = 0x0013;
    /** XOR-RELAYED-ADDRESS. */
    public static final int XOR_RELAYED_ADDRESS = 0x0016;
    /** REQUESTED-ADDRESS-FAMILY. */
    public static final int REQUESTED_ADDRESS_FAMILY = 0x0017;
    /** EVEN-PORT. */
    public static final int EVEN_PORT = 0x0018;
    /** REQUESTED-TRANSPORT. */
    public static final int REQUESTED_TRANSPORT = 0x0019;
    /** DONT-FRAGMENT. */
    public static final int DONT_FRAGMENT = 0x001A;
    /** RESERVATION-TOKEN. */
    public static final int RESERVATION_TOKEN = 0x0022;

    // Comprehension-optional, RFC 8489 §18.3.2.
    /** PASSWORD-ALGORITHMS, §14.11. */
    public static final int PASSWORD_ALGORITHMS = 0x8002;
    /** ALTERNATE-DOMAIN, §14.16. */
    public static final int ALTERNATE_DOMAIN = 0x8003;
    /** SOFTWARE, §14.14. */
    public static final int SOFTWARE = 0x8022;
    /** ALTERNATE-SERVER, §14.15. */
    public static final int ALTERNATE_SERVER = 0x8023;
    /** FINGERPRINT, §14.7. */
    public static final int FINGERPRINT = 0x8028;

    // Comprehension-optional, RFC 8445 §16.1 (ICE).
    /** ICE-CONTROLLED: 64-bit tie-breaker. */
    public static final int ICE_CONTROLLED = 0x8029;
    /** ICE-CONTROLLING: 64-bit tie-breaker. */
    public static final int ICE_CONTROLLING = 0x802A;

    /**
     * Comprehension-required types understood by STUN Binding and ICE (bit {@code t} of this 64-bit set is type
     * {@code t}; every assigned comprehension-required type we read is below 0x40; others are unknown).
     */
    public static final long BINDING_KNOWN_LOW = bit(MAPPED_ADDRESS) | bit(USERNAME) | bit(MESSAGE_INTEGRITY)
        | bit(ERROR_CODE) | bit(UNKNOWN_ATTRIBUTES) | bit(REALM) | bit(NONCE) | bit(MESSAGE_INTEGRITY_SHA256)
        | bit(PASSWORD_ALGORITHM) | bit(USERHASH) | bit(XOR_MAPPED_ADDRESS) | bit(PRIORITY) | bit(USE_CANDIDATE);

    /** {@link #BINDING_KNOWN_LOW} plus the TURN attributes, for a TURN client. */
    public static final long TURN_KNOWN_LOW = BINDING_KNOWN_LOW | bit(CHANNEL_NUMBER) | bit(LIFETIME)
        | bit(XOR_PEER_ADDRESS) | bit(DATA) | bit(XOR_RELAYED_ADDRESS) | bit(REQUESTED_ADDRESS_FAMILY)
        | bit(EVEN_PORT) | bit(REQUESTED_TRANSPORT) | bit(DONT_FRAGMENT) | bit(RESERVATION_TOKEN);

    private StunAttributeType()
    {
    }

    /**
     * @param type attribute type.
     * @return true for 0x0000-0x7FFF (RFC 8489 §15).
     */
    public static boolean isComprehensionRequired(final int type)
    {
        return type < 0x8000;
    }

    /**
     * @param type attribute type.
     * @return true for the types whose value is an (XOR-)address.
     */
    public static boolean isXorAddress(final int type)
    {
        return XOR_MAPPED_ADDRESS == type || XOR_PEER_ADDRESS == type || XOR_RELAYED_ADDRESS == type;
    }

    /**
     * A diagnostic name (tests and logs, not the per-packet path).
     *
     * @param type attribute type.
     * @return the RFC name, or the hex value.
     */
    public static String name(final int type)
    {
        switch (type)
        {
            case MAPPED_ADDRESS: return "MAPPED-ADDRESS";
            case USERNAME: return "USERNAME";
            case MESSAGE_INTEGRITY: return "MESSAGE-INTEGRITY";
            case ERROR_CODE: return "ERROR-CODE";
            case UNKNOWN_ATTRIBUTES: return "UNKNOWN-ATTRIBUTES";
            case REALM: return "REALM";
            case NONCE: return "NONCE";
            case MESSAGE_INTEGRITY_SHA256: return "MESSAGE-INTEGRITY-SHA256";
            case PASSWORD_ALGORITHM: return "PASSWORD-ALGORITHM";
            case USERHASH: return "USERHASH";
            case XOR_MAPPED_ADDRESS: return "XOR-MAPPED-ADDRESS";
            case PRIORITY: return "PRIORITY";
            case USE_CANDIDATE: return "USE-CANDIDATE";
            case PASSWORD_ALGORITHMS: return "PASSWORD-ALGORITHMS";
            case ALTERNATE_DOMAIN: return "ALTERNATE-DOMAIN";
            case SOFTWARE: return "SOFTWARE";
            case ALTERNATE_SERVER: return "ALTERNATE-SERVER";
            case FINGERPRINT: return "FINGERPRINT";
            case ICE_CONTROLLED: return "ICE-CONTROLLED";
            case ICE_CONTROLLING: return "ICE-CONTROLLING";
            default: return String.format("0x%04X", type);
        }
    }

    private static long bit(final int type)
    {
        return 1L << type;
    }
}
