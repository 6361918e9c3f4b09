package io.sipline.container.api;


/**
 * The 2xx to an INVITE that a UAS session sent and whose ACK has not come (RFC 3261 §13.3.1.4): retransmitted by the
 * dispatch layer until the ACK, a BYE that ends the dialog first (§15.1.2), or 64*T1. A session has at most one
 * ({@link SipSessionImpl#awaitingAck()}).
 * <p>
 * Not threadsafe; used on the session's shard.
 */
public interface AckWait extends ResponseRetransmission
{
    /** The CSeq number of the INVITE the 2xx answers: the ACK that ends the wait carries it (§17.1.1.3). */
    long cseq();

    /** The INVITE the 2xx answers (its ACK is never challenged and carries its user, RFC 3261 §22.1). */
    SipServletRequestImpl request();

    /** The wait is over (the ACK came, or a BYE ended the dialog): retransmissions stop, the session forgets it. */
    void end(SipSessionImpl session);
}
