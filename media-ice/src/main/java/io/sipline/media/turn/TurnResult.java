package io.sipline.media.turn;

/**
 * Outcomes a {@link TurnClient} reports: a STUN error code from the server (RFC 8656 §19 and RFC 8489 §14.8) as
 * the positive number itself, or a local failure as a negative constant. No exceptions on the media path.
 *
 * <p>Stateless constants; thread-safe.
 */
public final class TurnResult
{
    /** Done. */
    public static final int OK = 0;
    /** No response within the RFC 8489 §6.2.1 schedule. */
    public static final int TIMEOUT = -1;
    /** A success response whose MESSAGE-INTEGRITY did not verify with our key (RFC 8489 §9.2.5): ignored. */
    public static final int INTEGRITY_MISMATCH = -2;
    /** A success response without an attribute it must carry (e.g. XOR-RELAYED-ADDRESS). */
    public static final int MALFORMED_RESPONSE = -3;
    /** The server kept asking for credentials (401/438) past the retry limit, or 401 although we sent them. */
    public static final int AUTHENTICATION_FAILED = -4;
    /** Every client transaction slot is busy; try again on the next poll. */
    public static final int BUSY = -5;
    /** The request did not fit the client's request buffer (very long realm or nonce). */
    public static final int REQUEST_TOO_LARGE = -6;
    /** No allocation (not yet allocated, or deallocated/expired). */
    public static final int NOT_ALLOCATED = -7;
    /** The peer table is full. */
    public static final int NO_PEER_SLOT = -8;
    /** Sending to a peer without an installed permission (RFC 8656 §9). */
    public static final int NO_PERMISSION = -9;
    /** Data larger than the client's send buffer. */
    public static final int DATA_TOO_LARGE = -10;
    /** No free channel number. */
    public static final int NO_CHANNEL = -11;

    /** 401 Unauthenticated (RFC 8489 §14.8). */
    public static final int UNAUTHENTICATED = 401;
    /** 403 Forbidden (RFC 8656 §19). */
    public static final int FORBIDDEN = 403;
    /** 437 Allocation Mismatch (RFC 8656 §19). */
    public static final int ALLOCATION_MISMATCH = 437;
    /** 438 Stale Nonce (RFC 8489 §14.8). */
    public static final int STALE_NONCE = 438;
    /** 440 Address Family not Supported (RFC 8656 §19). */
    public static final int ADDRESS_FAMILY_NOT_SUPPORTED = 440;
    /** 441 Wrong Credentials (RFC 8656 §19). */
    public static final int WRONG_CREDENTIALS = 441;
    /** 442 Unsupported Transport Protocol (RFC 8656 §19). */
    public static final int UNSUPPORTED_TRANSPORT = 442;
    /** 443 Peer Address Family Mismatch (RFC 8656 §19). */
    public static final int PEER_ADDRESS_FAMILY_MISMATCH = 443;
    /** 486 Allocation Quota Reached (RFC 8656 §19). */
    public static final int ALLOCATION_QUOTA_REACHED = 486;
    /** 508 Insufficient Capacity (RFC 8656 §19). */
    public static final int INSUFFICIENT_CAPACITY = 508;

    private TurnResult()
    {
    }

    /**
     * @param result a code.
     * @return a diagnostic name (allocates for unnamed server codes; not for the per-packet path).
     */
    public static String name(final int result)
    {
        return switch (result)
        {
            case OK -> "OK";
            case TIMEOUT -> "TIMEOUT";
            case INTEGRITY_MISMATCH -> "INTEGRITY_MISMATCH";
            case MALFORMED_RESPONSE -> "MALFORMED_RESPONSE";
            case AUTHENTICATION_FAILED -> "AUTHENTICATION_FAILED";
            case BUSY -> "BUSY";
            case REQUEST_TOO_LARGE -> "REQUEST_TOO_LARGE";
            case NOT_ALLOCATED -> "NOT_ALLOCATED";
            case NO_PEER_SLOT -> "NO_PEER_SLOT";
            case NO_PERMISSION -> "NO_PERMISSION";
            case DATA_TOO_LARGE -> "DATA_TOO_LARGE";
            case NO_CHANNEL -> "NO_CHANNEL";
            case UNAUTHENTICATED -> "401 Unauthenticated";
            case FORBIDDEN -> "403 Forbidden";
            case ALLOCATION_MISMATCH -> "437 Allocation Mismatch";
            case STALE_NONCE -> "438 Stale Nonce";
            case ADDRESS_FAMILY_NOT_SUPPORTED -> "440 Address Family not Supported";
            case WRONG_CREDENTIALS -> "441 Wrong Credentials";
            case UNSUPPORTED_TRANSPORT -> "442 Unsupported Transport Protocol";
            case PEER_ADDRESS_FAMILY_MISMATCH -> "443 Peer Address Family Mismatch";
            case ALLOCATION_QUOTA_REACHED -> "486 Allocation Quota Reached";
            case INSUFFICIENT_CAPACITY -> "508 Insufficient Capacity";
            default -> "error " + result;
        };
    }
}
