package io.sipline.sip.dialog;

/**
 * Why a dialog ended; handed to {@link DialogListener#onDialogTerminated}.
 *
 * <p>Immutable; thread-safe.
 */
public enum DialogEndReason
{
    /** A BYE was answered with a 2xx (UAS, §15.1.2) or got any final response (UAC, §15.1.1). */
    BYE,
    /** A non-2xx final response to the dialog-creating request ended its early dialogs (§12.3). */
    REJECTED,
    /** A 481 to a request inside the dialog (§12.2.1.2). */
    NO_SUCH_DIALOG,
    /** A 408 to a request inside the dialog, or the client transaction of one timed out (§12.2.1.2). */
    REQUEST_TIMEOUT,
    /**
     * The dialog-creating INVITE's client transaction ended (64*T1 after the first 2xx, §13.2.2.4, or Timer B)
     * while this early dialog had not been confirmed by a 2xx of its own: a fork that never answered.
     */
    TRANSACTION_ENDED,
    /** The transaction user reported a timeout of its own (no ACK for a 2xx, §13.3.1.4; a session timer; ...). */
    TIMEOUT,
    /** The transaction user ended the dialog for a reason of its own. */
    LOCAL
}
