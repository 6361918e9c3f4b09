package io.sipline.sip.transaction;

/**
 * States of the RFC 3261 §17 machines, with the RFC 6026 {@link #ACCEPTED} state for a 2xx to INVITE.
 *
 * <pre>
 *   INVITE client       Calling -> Proceeding -> Completed | Accepted -> Terminated
 *   non-INVITE client   Trying  -> Proceeding -> Completed -> Terminated
 *   INVITE server       Proceeding -> Completed -> Confirmed | Accepted -> Terminated
 *   non-INVITE server   Trying  -> Proceeding -> Completed -> Terminated
 * </pre>
 *
 * Immutable; thread-safe.
 */
public enum TransactionState
{
    /** INVITE client: request sent, no response yet (§17.1.1.2). */
    CALLING,
    /** Non-INVITE client: request sent, no response yet; non-INVITE server: request received, no response yet. */
    TRYING,
    /** A provisional response was received (client) or sent (server). */
    PROCEEDING,
    /** A final response (non-2xx for INVITE) was received or sent; retransmissions are absorbed. */
    COMPLETED,
    /** INVITE server: the ACK for a non-2xx arrived (§17.2.1). */
    CONFIRMED,
    /** INVITE, 2xx received or sent (RFC 6026 §7.1, §7.2): the transaction only absorbs retransmissions. */
    ACCEPTED,
    /** Ended; the object is back in its pool (or about to be). */
    TERMINATED
}
