package io.sipline.sip.transaction;

/**
 * The responses of an INVITE server transaction whose time since the INVITE arrived the transaction layer records,
 * once per transaction each ({@link TransactionLayer#inviteResponseTimes(InviteResponse)}): the first 180, and the
 * first final response, split by whether it is a 2xx or not (after a final response no other final one can follow on
 * the same transaction, RFC 3261 §17.2.1, so "first 2xx" and "first final response, a 2xx" are the same event).
 */
public enum InviteResponse
{
    /** The first {@code 180 Ringing} (another 1xx, a 183 say, is not recorded). */
    RINGING("180"),
    /** The first final response, when it is a 2xx. */
    SUCCESS("2xx"),
    /** The first final response, when it is 300-699. */
    FAILURE("3xx-6xx");

    private final String label;

    InviteResponse(final String label)
    {
        this.label = label;
    }

    /** The value of the {@code response} label on {@code /metrics}: {@code 180}, {@code 2xx}, {@code 3xx-6xx}. */
    public String label()
    {
        return label;
    }
}
