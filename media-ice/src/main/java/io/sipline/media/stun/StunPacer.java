package io.sipline.media.stun;

/**
 * Who decides when a STUN client may start a new transaction: RFC 8445 §14.2 makes all the transactions of all the
 * ICE agents of an implementation take turns ("MUST NOT be sent more often than once every 5 ms"), gathering
 * requests and the TURN client's own requests included (§14.1). A retransmission belongs to a transaction already
 * started and does not ask for a turn.
 *
 * <p>Not thread-safe; one per media thread, asked only by the clients running on it.
 */
public interface StunPacer
{
    /** Never holds a transaction back: a client used outside ICE. */
    StunPacer UNPACED = new StunPacer()
    {
        @Override
        public boolean takeTurn(final long nowMs)
        {
            return true;
        }

        @Override
        public long nextTurnMs(final long nowMs)
        {
            return nowMs;
        }
    };

    /**
     * Takes the turn if it is free.
     *
     * @param nowMs the owner's clock.
     * @return true when a new transaction may leave now (the turn is then taken), false when it must wait.
     */
    boolean takeTurn(long nowMs);

    /**
     * @param nowMs the owner's clock.
     * @return the earliest time {@link #takeTurn} can succeed (at most {@code nowMs} when it can now).
     */
    long nextTurnMs(long nowMs);
}
