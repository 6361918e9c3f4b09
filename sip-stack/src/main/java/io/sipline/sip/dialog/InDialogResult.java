package io.sipline.sip.dialog;

/**
 * The outcome of matching an incoming request to a dialog ({@link DialogLayer#onRequest}): a result code, never an
 * exception. {@link #statusCode()} is the response the transaction user must send when the request is refused.
 *
 * <p>Immutable; thread-safe.
 */
public enum InDialogResult
{
    /** The request belongs to a dialog and is in order; the remote CSeq has been advanced (§12.2.2). */
    OK(0),
    /** No dialog has this id: answer 481 Call/Transaction Does Not Exist (§12.2.2); an ACK is dropped. */
    NO_DIALOG(481),
    /** The CSeq is lower than the dialog's remote CSeq: out of order, answer 500 (§12.2.2). */
    OUT_OF_ORDER(500);

    private final int statusCode;

    InDialogResult(final int statusCode)
    {
        this.statusCode = statusCode;
    }

    /** The status code to answer with, or 0 for {@link #OK}. */
    public int statusCode()
    {
        return statusCode;
    }
}
