package io.sipline.sip.dialog;

/**
 * Why the last attempt to create a dialog made none ({@link DialogLayer#lastFailure()}): a value, not an exception.
 *
 * <p>Immutable; thread-safe.
 */
public enum DialogFailure
{
    /** The last creation succeeded. */
    NONE,
    /** The request cannot create a dialog: not INVITE, SUBSCRIBE or REFER, or already inside a dialog (To tag). */
    NOT_DIALOG_CREATING,
    /** The response cannot create a dialog: 100, a final non-2xx, a 1xx to a non-INVITE or a 1xx without To tag. */
    RESPONSE_CANNOT_CREATE,
    /** The From or To header is missing or malformed (§12.1). */
    BAD_ADDRESS,
    /** The request has no usable Contact (§12.1.1: it becomes the remote target), or it is the wildcard. */
    BAD_CONTACT,
    /** A Record-Route value is malformed (§12.1.1, §12.1.2). */
    BAD_RECORD_ROUTE,
    /** The local tag is empty (§19.3: a UAS must add a To tag). */
    BAD_TAG
}
