package io.sipline.sip.transaction;

/**
 * What the {@link TransactionUser} hangs on one of its transactions ({@link Transaction#attachment()}): the record it
 * finds again when the transaction's responses, retransmissions, CANCEL or timeout come back (a servlet request, a
 * proxy branch, a relayed request), or one of its marks.
 *
 * <p>The stack never reads it; it only keeps it until the transaction terminates. The interface is the stack's so that
 * the field stays typed while the user's classes live in the packages above it.
 */
public interface TransactionAttachment
{
}
