package io.sipline.sip.dialog;

/**
 * Told by the {@link DialogLayer} when a dialog ends, whoever ended it (a BYE, an error response, the end of the
 * creating transaction, the transaction user). Called on the shard's thread, before the record returns to the pool:
 * drop every reference to the dialog before returning (its {@link Dialog#handle()} changes when it is reused).
 *
 * <p>Implementations must not allocate per call on the hot path (no capturing lambdas created per message).
 */
public interface DialogListener
{
    /** A listener that does nothing. */
    DialogListener NONE = new DialogListener()
    {
        @Override
        public void onDialogTerminated(final Dialog dialog, final DialogEndReason reason)
        {
        }
    };

    /**
     * The dialog is terminated; it is still readable during the call and is recycled right after.
     *
     * @param dialog borrowed for the duration of the call.
     */
    void onDialogTerminated(Dialog dialog, DialogEndReason reason);
}
