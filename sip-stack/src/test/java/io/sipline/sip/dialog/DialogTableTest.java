package io.sipline.sip.dialog;

import static io.sipline.sip.dialog.DialogMessages.inDialogFromAlice;
import static io.sipline.sip.dialog.DialogMessages.inviteToBob;
import static io.sipline.sip.dialog.DialogMessages.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import io.sipline.sip.message.SipMessage;
import io.sipline.test.AllocationMeter;
import org.junit.jupiter.api.Test;

/** Lookups by dialog id: many dialogs, removals, hash collisions, and no allocation on the request path. */
class DialogTableTest
{
    private static final int DIALOGS = 5_000;

    private final DialogPool pool = new DialogPool(DIALOGS, 0);
    private final DialogLayer layer = new DialogLayer(pool, new DialogTable(64), DialogListener.NONE);

    private static String callId(final int i)
    {
        return "call-" + i + "@host" + (i % 7) + ".example.com";
    }

    private static String tag(final int i)
    {
        return "t" + Integer.toHexString(i * 2654435761L > 0 ? i * 31 : i);
    }

    @Test
    void shouldFindEachOfManyDialogsAndSurviveRemovals()
    {
        final Dialog[] dialogs = new Dialog[DIALOGS];
        for (int i = 0; i < DIALOGS; i++)
        {
            final SipMessage invite = parse(inviteToBob("sip:bob@biloxi.example.com", callId(i), "alice" + i, 1));
            dialogs[i] = layer.createUas(invite, tag(i), 200, false);
        }
        assertEquals(DIALOGS, layer.table().size());
        assertTrue(layer.table().idCapacity() >= DIALOGS * 2, "grew past its initial 64");

        for (int i = 0; i < DIALOGS; i++)
        {
            final SipMessage bye = parse(inDialogFromAlice("BYE", callId(i), 2, tag(i), null)
                .replace("tag=" + DialogMessages.ALICE_TAG, "tag=alice" + i));
            assertSame(dialogs[i], layer.table().findForRequest(bye), callId(i));
        }

        // end every third dialog; the others must still be found (backward-shift deletion keeps probe runs whole)
        for (int i = 0; i < DIALOGS; i += 3)
        {
            layer.terminate(dialogs[i], DialogEndReason.LOCAL);
        }
        for (int i = 0; i < DIALOGS; i++)
        {
            final byte[] c = callId(i).getBytes(StandardCharsets.US_ASCII);
            final byte[] l = tag(i).getBytes(StandardCharsets.US_ASCII);
            final byte[] r = ("alice" + i).getBytes(StandardCharsets.US_ASCII);
            final Dialog found = layer.table().find(c, 0, c.length, l, 0, l.length, r, 0, r.length);
            if (i % 3 == 0)
            {
                assertNull(found);
            }
            else
            {
                assertSame(dialogs[i], found);
            }
        }
        assertEquals(DIALOGS - (DIALOGS + 2) / 3, layer.table().size());
    }

    @Test
    void shouldNotConfuseIdsThatDifferOnlyInWhereThePartsSplit()
    {
        final byte[] b = "abc".getBytes(StandardCharsets.US_ASCII);
        assertTrue(DialogTable.idHash(b, 0, 2, b, 2, 3, b, 0, 0) != DialogTable.idHash(b, 0, 1, b, 1, 3, b, 0, 0));
    }

    @Test
    void shouldLookUpInDialogRequestsWithoutAllocating()
    {
        final Dialog[] dialogs = new Dialog[1000];
        final SipMessage[] requests = new SipMessage[dialogs.length];
        for (int i = 0; i < dialogs.length; i++)
        {
            final SipMessage invite = parse(inviteToBob("sip:bob@biloxi.example.com", callId(i), "alice" + i, 1));
            dialogs[i] = layer.createUas(invite, tag(i), 200, false);
            requests[i] = parse(inDialogFromAlice("INFO", callId(i), 2, tag(i), null)
                .replace("tag=" + DialogMessages.ALICE_TAG, "tag=alice" + i));
        }
        final long[] sink = {0};
        // The least of up to five attempts: a one-off deoptimisation is not charged to the table.
        final long allocated = AllocationMeter.leastBytes(
            () -> lookUpTimes(requests, 50_000, sink), () -> lookUpTimes(requests, 10_000, sink), 5, 0);
        assertTrue(sink[0] > 0);
        assertEquals(0, allocated, "bytes allocated by 10,000 in-dialog request lookups");
        for (int i = 0; i < dialogs.length; i++)
        {
            assertSame(dialogs[i], layer.table().findForRequest(requests[i]));
        }
    }

    private void lookUpTimes(final SipMessage[] requests, final int times, final long[] sink)
    {
        for (int i = 0; i < times; i++)
        {
            sink[0] += layer.onRequest(requests[i % requests.length]).ordinal() + layer.matched().remoteCSeq();
        }
    }
}
