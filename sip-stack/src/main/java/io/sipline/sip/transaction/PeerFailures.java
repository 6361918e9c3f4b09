package io.sipline.sip.transaction;

import java.net.InetSocketAddress;

/**
 * The transport failures of peers being applied to a {@link TransactionLayer}'s transactions (RFC 3261 §17.1.4,
 * §17.2.4, §18.4). A report starts a scan of the layer's registry of transactions and spends one slice of
 * {@link #PER_POLL} entries at once; each {@link TransactionLayer#doWork} spends one more, so a peer with hundreds of
 * thousands of transactions never holds the shard for the whole walk. Only transactions that existed when the peer
 * was reported are looked at: one started later (its id is higher) is left alone, whatever the scan finds afterwards,
 * even in a slot of the registry the pool emptied and filled again ({@link TransactionPool}: holes read null).
 * At most {@link #SCANS} reports wait at once, in a ring; one more finishes the oldest first.
 *
 * <p>A matching transaction is failed through {@link TransactionLayer#failTransport(Transaction)}: it reports its
 * transport error and terminates from the layer's next timer poll, never inside the caller's call.
 *
 * <p>Buffers: none. Not thread-safe; one per layer, on its shard's thread. Allocates nothing after construction.
 */
final class PeerFailures
{
    /** Registry entries the waiting scans look at per {@link TransactionLayer#doWork}, and when one starts. */
    static final int PER_POLL = 8192;
    /** Peer failures that may wait for their scan at once. */
    static final int SCANS = 8;

    private final TransactionLayer layer;
    private final Scan[] scans = new Scan[SCANS];
    private int first;
    private int count;

    PeerFailures(final TransactionLayer layer)
    {
        this.layer = layer;
        for (int i = 0; i < SCANS; i++)
        {
            scans[i] = new Scan();
        }
    }

    /**
     * Starts a scan of every transaction for {@code peer} and spends one slice of {@link #PER_POLL} entries now (on
     * the oldest scan waiting, this one when it is alone).
     *
     * @param datagram true for a UDP peer (compared by address and port, client and server transactions), false for
     *                 a flow (compared by identity, client transactions only).
     * @return the transactions failed by this slice.
     */
    int start(final InetSocketAddress peer, final boolean datagram)
    {
        if (null == peer)
        {
            return 0;
        }
        if (count == scans.length)
        {
            advance(Integer.MAX_VALUE, 1); // the oldest, to its end
        }
        final Scan scan = scans[(first + count++) % scans.length];
        scan.peer = peer;
        scan.datagram = datagram;
        scan.idLimit = layer.nextId();
        scan.cursor = 0;
        return advance(PER_POLL, count);
    }

    /** One slice for the scans waiting, from the layer's duty cycle; 0 when none waits. */
    int poll()
    {
        return 0 == count ? 0 : advance(PER_POLL, count);
    }

    /** Peer scans waiting to go on. */
    int waiting()
    {
        return count;
    }

    /**
     * Advances the waiting scans, oldest first, by up to {@code budget} registry entries in all, looking at the first
     * {@code n} of them at most; a scan that reaches the end of the registry is done.
     *
     * @return the transactions failed.
     */
    private int advance(final int budget, final int n)
    {
        int failed = 0;
        int left = budget;
        for (int k = 0; k < n && count > 0 && left > 0; k++)
        {
            final Scan scan = scans[first];
            // the registry may have shrunk below the cursor since the last slice (its top let go by the pool's trim)
            final int registered = layer.registryLimit();
            final int start = Math.min(scan.cursor, registered);
            final int end = (int)Math.min(registered, (long)start + left);
            for (int i = start; i < end; i++)
            {
                final Transaction tx = layer.registered(i); // null for a hole
                if (matches(tx, scan))
                {
                    layer.failTransport(tx);
                    failed++;
                }
            }
            left -= end - start;
            scan.cursor = end;
            if (end < registered)
            {
                break; // out of budget
            }
            scan.peer = null;
            first = (first + 1) % scans.length;
            count--;
        }
        return failed;
    }

    private static boolean matches(final Transaction tx, final Scan scan)
    {
        if (null == tx || 0 == tx.id || tx.id >= scan.idLimit || tx.transportFailed
            || tx.state == TransactionState.TERMINATED)
        {
            return false;
        }
        final boolean waiting = tx.state == TransactionState.CALLING || tx.state == TransactionState.TRYING
            || tx.state == TransactionState.PROCEEDING;
        return scan.datagram ?
            !tx.reliable && scan.peer.equals(tx.responseDestination()) && (!tx.isClient() || waiting) :
            tx.peer == scan.peer && tx.isClient() && waiting;
    }

    /** A transport failure of one peer being applied to the transactions, a slice of the registry per poll. */
    private static final class Scan
    {
        InetSocketAddress peer;
        boolean datagram;
        /** Transactions with this id or higher started after the report. */
        long idLimit;
        /** Registry index where the scan goes on. */
        int cursor;
    }
}
