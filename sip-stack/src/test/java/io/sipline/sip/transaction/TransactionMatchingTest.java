package io.sipline.sip.transaction;

import static io.sipline.sip.transaction.TransactionHarness.outgoing;
import static io.sipline.sip.transaction.TransactionHarness.request;
import static io.sipline.sip.transaction.TransactionHarness.response;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

class TransactionMatchingTest
{
    @Test
    void shouldMatchCancelToItsInviteServerTransaction()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(request("INVITE", "z9hG4bKinv"));
        final ServerTransaction invite = h.lastServer;
        h.receive(request("CANCEL", "z9hG4bKinv", "CANCEL", 1, null));
        final ServerTransaction cancel = h.lastServer;
        assertNotSame(invite, cancel); // a CANCEL is its own transaction (§9.2)
        assertEquals(List.of("request INVITE", "request CANCEL"), h.events);
        assertSame(invite, cancel.cancelledInvite());
        h.respond(cancel, 200);
        h.receive(request("CANCEL", "z9hG4bKinv", "CANCEL", 1, null)); // retransmitted CANCEL: re-send its 200
        assertTrue(h.lastSent().startsWith("SIP/2.0 200 ") && h.lastSent().contains("CANCEL"));
        h.receive(request("CANCEL", "z9hG4bKother", "CANCEL", 1, null));
        assertNull(h.lastServer.cancelledInvite()); // the user answers 481
        h.respond(h.lastServer, 481);
        h.respond(invite, 487);
        h.receive(request("ACK", "z9hG4bKinv", "ACK", 1, "uastag"));
        h.advanceMs(40_000);
        assertNull(cancel.cancelledInvite());
        assertEquals(0, h.layer.activeTransactions());
        h.assertNoLeaks();
    }

    @Test
    void shouldTellSentByAndMethodApart()
    {
        final TransactionHarness h = new TransactionHarness();
        final String options = request("OPTIONS", "z9hG4bKsame");
        h.receive(options);
        h.receive(options.replace("pc33.atlanta.example.com:5060;", "pc34.atlanta.example.com:5060;"));
        h.receive(options.replace("pc33.atlanta.example.com:5060;", "pc33.atlanta.example.com:5070;"));
        h.receive(request("INFO", "z9hG4bKsame"));
        h.receive(options.replace("z9hG4bKsame", "z9hG4bKSAME")); // branch compared ignoring case
        assertEquals(4, h.layer.activeTransactions());
        assertEquals(1, h.layer.absorbedRequests());
        h.advanceMs(0);
    }

    @Test
    void shouldMatchRfc2543RequestsWithoutMagicCookie()
    {
        final TransactionHarness h = new TransactionHarness();
        final String invite = request("INVITE", "1234oldstyle");
        h.receive(invite);
        final ServerTransaction tx = h.lastServer;
        assertTrue(tx.isLegacy());
        h.receive(invite); // same R-URI, tags, Call-ID, CSeq, top Via: a retransmission
        assertEquals(List.of("request INVITE"), h.events);
        assertEquals(2, h.sent.size()); // 100 twice
        h.receive(request("INVITE", "1234oldstyle", "INVITE", 2, null)); // new CSeq: a new transaction
        final ServerTransaction other = h.lastServer;
        assertNotSame(tx, other);
        h.receive(request("INVITE", null)); // no branch at all: also RFC 2543
        assertTrue(h.lastServer.isLegacy());
        assertNotSame(other, h.lastServer);
        h.respond(h.lastServer, 486); // never ACKed: ends on timer H
        // CANCEL matched by the RFC 2543 fields (§9.2)
        h.receive(request("CANCEL", "1234oldstyle", "CANCEL", 1, null));
        assertSame(tx, h.lastServer.cancelledInvite());
        h.respond(h.lastServer, 200);
        // ACK for a non-2xx: matched by the To tag of the response sent (§17.2.3)
        h.lastRequest = TransactionHarness.parse(invite);
        h.respond(tx, 487);
        h.receive(request("ACK", "1234oldstyle", "ACK", 1, "wrongtag"));
        assertEquals(TransactionState.COMPLETED, tx.state());
        assertEquals("stateless-request ACK", h.events.get(h.events.size() - 1));
        h.receive(request("ACK", "1234oldstyle", "ACK", 1, "uastag"));
        assertEquals(TransactionState.CONFIRMED, tx.state());
        h.lastRequest = TransactionHarness.parse(request("INVITE", "1234oldstyle", "INVITE", 2, null));
        h.respond(other, 500);
        h.advanceMs(40_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldMatchResponsesByBranchAndCseqMethod()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction invite = h.send(outgoing("INVITE", "z9hG4bKc1"), false);
        final ClientTransaction cancel = h.send(outgoing("CANCEL", "z9hG4bKc1"), false);
        assertNotSame(invite, cancel);
        h.receive(response(200, "z9hG4bKc1", "CANCEL"));
        assertEquals(TransactionState.COMPLETED, cancel.state());
        assertEquals(TransactionState.CALLING, invite.state());
        h.receive(response(487, "z9hG4bKc1", "INVITE"));
        assertEquals(TransactionState.COMPLETED, invite.state());
        h.receive(response(200, "z9hG4bKnone", "INVITE"));
        assertEquals(List.of("response 200", "response 487", "stateless-response 200"), h.events);
        assertEquals(1, h.layer.strayResponses());
        h.advanceMs(40_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldRefuseUnusableRequestsAndReleaseThem()
    {
        final TransactionHarness h = new TransactionHarness();
        assertNull(h.send(outgoing("INVITE", "nocookie"), false));
        assertNull(h.send(outgoing("ACK", "z9hG4bKack"), false));
        assertNull(h.send("garbage\r\n\r\n", false));
        h.send(outgoing("INVITE", "z9hG4bKdup"), true);
        assertNull(h.send(outgoing("INVITE", "z9hG4bKdup"), true)); // same branch and method
        assertEquals(4, h.layer.rejectedRequests());
        h.advanceMs(40_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldSendARequestMalformedWhereSendingDoesNotReadAndAckNothingForItsFailure()
    {
        final TransactionHarness h = new TransactionHarness();
        // The layer reads the request line, the top Via and the CSeq; a From without a URI is its writer's fault.
        final ClientTransaction tx = h.send(outgoing("INVITE", "z9hG4bKbadfrom")
            .replace("From: <sip:us@example.com>;tag=ourtag", "From: nobody;tag=ourtag"), false);
        assertNotNull(tx);
        assertEquals(1, h.sent.size());
        h.receive(response(486, "z9hG4bKbadfrom", "INVITE"));
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.receive(response(486, "z9hG4bKbadfrom", "INVITE")); // a retransmission: nothing to re-send either
        assertEquals(1, h.sent.size(), "no ACK can be built from a request that does not parse");
        assertEquals(List.of("response 486"), h.events);
        h.advanceMs(40_000);
        assertEquals(0, h.layer.activeTransactions());
        h.assertNoLeaks();
    }

    @Test
    void shouldPassUnmatchedAcksAndStrayResponsesUpStatelessly()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(request("ACK", "z9hG4bKnotx", "ACK", 1, "sometag"));
        h.receive(response(200, "z9hG4bKnotx", "INVITE"));
        assertEquals(List.of("stateless-request ACK", "stateless-response 200"), h.events);
        assertEquals(1, h.layer.unmatchedAcks());
        assertEquals(0, h.layer.activeTransactions());
    }

    @Test
    void shouldReturnTransactionsToThePool()
    {
        final TransactionHarness h = new TransactionHarness();
        final int free = h.layer.freeTransactions();
        final int created = h.layer.transactionObjects();
        for (int i = 0; i < 10; i++)
        {
            h.receive(request("OPTIONS", "z9hG4bKpool" + i));
            h.respond(h.lastServer, 200);
        }
        assertEquals(10, h.layer.activeTransactions());
        assertEquals(6, h.layer.poolMisses()); // 4 pooled non-INVITE server transactions, 6 more made
        h.advanceMs(32_000);
        assertEquals(0, h.layer.activeTransactions());
        assertEquals(free + 6, h.layer.freeTransactions());
        assertEquals(created + 6, h.layer.transactionObjects());
        for (int i = 0; i < 10; i++)
        {
            h.receive(request("OPTIONS", "z9hG4bKagain" + i));
            h.respond(h.lastServer, 200);
        }
        assertEquals(6, h.layer.poolMisses()); // reused, no new objects
        h.advanceMs(32_000);
        assertEquals(free + 6, h.layer.freeTransactions());
        assertEquals(20, h.layer.poolReleases());
        h.assertNoLeaks();
    }

    @Test
    void shouldNotKeepAnOutsizedKeyInThePool()
    {
        // A branch of 20 KB grows the key array of the transaction it creates; once that transaction ends, its
        // pooled object must not keep the array for the life of the shard.
        final TransactionHarness h = new TransactionHarness();
        h.receive(request("OPTIONS", "z9hG4bK" + "x".repeat(20_000)));
        final ServerTransaction big = h.lastServer;
        assertTrue(big.key.length > 20_000);
        h.respond(big, 200);
        h.advanceMs(32_000); // Timer J
        assertEquals(0, h.layer.activeTransactions());
        assertTrue(big.key.length <= Transaction.KEY_KEPT, "key array kept: " + big.key.length);

        h.receive(request("OPTIONS", "z9hG4bK" + "y".repeat(150)));
        assertSame(big, h.lastServer, "the pool's last released object");
        final byte[] grown = big.key;
        h.respond(big, 200);
        h.advanceMs(32_000);
        assertTrue(grown == big.key, "a key within the bound keeps its array: no allocation on the next use");
        h.assertNoLeaks();
    }

    @Test
    void shouldTimeAndPoolThousandsOfTransactionsAcrossRegistryChunks()
    {
        // 3,000 live at once: the registry (by index, for the timers) spans several chunks and both tables grow.
        final TransactionHarness h = new TransactionHarness();
        final int created = h.layer.transactionObjects();
        for (int i = 0; i < 3_000; i++)
        {
            h.receive(request("OPTIONS", "z9hG4bKmany" + i));
            h.respond(h.lastServer, 200);
        }
        assertEquals(3_000, h.layer.activeTransactions());
        final long misses = h.layer.poolMisses();
        assertEquals(created + misses, h.layer.transactionObjects());
        h.receive(request("OPTIONS", "z9hG4bKmany2999")); // a retransmission: the last one answers it again
        assertEquals("SIP/2.0 200", h.sent.getLast().substring(0, 11));
        expireAll(h); // Timer J of every one, each found through its index
        assertEquals(0, h.layer.activeTransactions());
        assertEquals(created + misses, h.layer.freeTransactions());
        for (int i = 0; i < 3_000; i++)
        {
            h.receive(request("OPTIONS", "z9hG4bKagain" + i));
            h.respond(h.lastServer, 200);
        }
        assertEquals(misses, h.layer.poolMisses(), "the second 3,000 reuse the first ones' objects");
        expireAll(h);
        assertEquals(0, h.layer.activeTransactions());
        h.assertNoLeaks();
    }

    @Test
    void shouldFailAnUnreachablePeersTransactionsASliceAtATimeAndNoneStartedAfter()
    {
        // RFC 3261 §18.4: an ICMP port unreachable from a UDP peer fails its transactions. More of them than one
        // slice of the scan, so that the rest are failed by the next polls.
        final TransactionHarness h = new TransactionHarness();
        final InetSocketAddress gone = new InetSocketAddress("192.0.2.20", 5060);
        final InetSocketAddress other = new InetSocketAddress("192.0.2.21", 5060);
        final int toGone = PeerFailures.PER_POLL + 2_000;
        final List<ClientTransaction> goneTx = new java.util.ArrayList<>();
        for (int i = 0; i < toGone; i++)
        {
            goneTx.add(h.layer.sendRequest(h.buffer(outgoing("OPTIONS", "z9hG4bKgone" + i)), gone, false));
        }
        final List<ClientTransaction> otherTx = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            otherTx.add(h.layer.sendRequest(h.buffer(outgoing("OPTIONS", "z9hG4bKother" + i)), other, false));
        }

        final int firstSlice = h.layer.failDatagramPeer(gone);
        assertTrue(firstSlice > 0 && firstSlice < toGone, "the first slice only: " + firstSlice);
        assertEquals(1, h.layer.peerScansWaiting());
        final ClientTransaction later = h.layer.sendRequest(h.buffer(outgoing("OPTIONS", "z9hG4bKlater")), gone,
            false);
        for (int polls = 0; polls < 10 && h.layer.peerScansWaiting() > 0; polls++)
        {
            h.advanceMs(0);
        }
        assertEquals(0, h.layer.peerScansWaiting());
        for (int polls = 0; polls < 100 && h.advanceMs(0) > 0; polls++)
        {
            // the transport errors the slices scheduled, a poll limit's worth at a time
        }

        assertEquals(toGone, h.events.stream().filter("transport-error"::equals).count());
        assertEquals(toGone, h.layer.transportErrors());
        for (final ClientTransaction tx : goneTx)
        {
            assertEquals(0, tx.id(), "ended and back in the pool");
        }
        for (final ClientTransaction tx : otherTx)
        {
            assertNotEquals(0, tx.id(), "another peer's transaction goes on");
        }
        assertNotEquals(0, later.id(), "one started after the report is not failed by it");
    }

    /** 32 s on, then polls until the timers are done (each poll fires at most the layer's poll limit). */
    private static void expireAll(final TransactionHarness h)
    {
        h.advanceMs(32_000);
        for (int polls = 0; polls < 100 && h.advanceMs(0) > 0; polls++)
        {
            // each poll fires the next batch of due timers
        }
    }

    @Test
    void shouldCountMalformedMessages()
    {
        final TransactionHarness h = new TransactionHarness();
        final io.sipline.sip.message.SipMessage bad = new io.sipline.sip.message.SipMessage();
        final byte[] b = "INVITE sip:x SIP/2.0\r\nVia: garbage\r\n\r\n"
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        io.sipline.sip.message.SipMessageParser.parseDatagram(b, 0, b.length, bad);
        assertEquals(false, h.layer.onIncoming(bad, TransactionHarness.PEER, false));
        assertEquals(1, h.layer.malformed());
    }
}
