package io.sipline.sip.dialog;

/**
 * The states of a dialog (RFC 3261 §12): a dialog made by a provisional response is early, a 2xx confirms it, and
 * it ends terminated (§12.3). A terminated dialog goes back to its shard's {@link DialogPool}. A UAC's record can be
 * prepared before its dialog exists ({@link DialogLayer#prepareUac}): it is initial until a response creates it.
 *
 * <p>Immutable; thread-safe.
 */
public enum DialogState
{
    /**
     * Prepared by a UAC for a dialog-creating request not answered yet with a To tag (§12.1.2): Call-ID, local tag,
     * parties, local CSeq and the Request-URI as remote target are known; the record is in no table.
     */
    INITIAL,
    /** Created by a 1xx with a To tag to an INVITE (§12.1); a 2xx confirms it, a non-2xx final ends it (§12.3). */
    EARLY,
    /** Created or confirmed by a 2xx (§12.1, §13.2.2.4). */
    CONFIRMED,
    /** Over; the record is about to return, or has returned, to the pool. */
    TERMINATED
}
