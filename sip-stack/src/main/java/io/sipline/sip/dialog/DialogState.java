package io.sipline.sip.dialog;

/**
 * The states of a dialog (RFC 3261 §12): a dialog made by a provisional response is early, a 2xx confirms it, and
 * it ends terminated (§12.3). A terminated dialog goes back to its shard's {@link DialogPool}.
 *
 * <p>Immutable; thread-safe.
 */
public enum DialogState
{
    /** Created by a 1xx with a To tag to an INVITE (§12.1); a 2xx confirms it, a non-2xx final ends it (§12.3). */
    EARLY,
    /** Created or confirmed by a 2xx (§12.1, §13.2.2.4). */
    CONFIRMED,
    /** Over; the record is about to return, or has returned, to the pool. */
    TERMINATED
}
