package io.sipline.media.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Retained-size sketch (budget: ≤ 8 KB per call): prints, never asserts, the heap growth per candidate
 * and per check list, measured as the live-heap delta ({@link LiveHeap}) over many live instances.
 *
 * <p>By hand, with compressed oops and class pointers (12-byte header, 8-byte alignment): an {@link IceCandidate} is
 * 12 + 5 references (20) + 6 longs (48) + int (4) + short + 3 chars (8) + 4 bytes (4) = 96 bytes, plus its
 * foundation string when not shared (a local foundation comes from a static table; a parsed one costs ~48 bytes:
 * String 24 + byte[] 16 + text). A pair is one slot in five parallel arrays: 8 + 1 + 1 + 1 + 1 = 12 bytes, allocated
 * at the pair limit: 16 + 5 × (array header 16) + 100 × 12, about 1.3 KB for a 100-pair list, 0.5 KB for 32.
 */
class IceFootprintTest
{
    private static final int COUNT = 100_000;

    @Test
    void shouldPrintRetainedSizes() throws IceParseException
    {
        final IceCandidate template = IceSdp.parseCandidate(
            "candidate:2 1 UDP 1694498815 192.0.2.3 45664 typ srflx raddr 10.0.1.1 rport 8998");
        final String foundation = template.foundation();

        final long before = LiveHeap.bytes();
        final IceCandidate[] candidates = new IceCandidate[COUNT];
        for (int i = 0; i < COUNT; i++)
        {
            candidates[i] = new IceCandidate()
                .set(IceCandidateType.SERVER_REFLEXIVE, 1, template.priority(), foundation)
                .ipv4(template.ipv4() + i, 45664).base(IceCandidate.FAMILY_IPV4, 0, 0x0A00_0101, 8998)
                .related(IceCandidate.FAMILY_IPV4, 0, 0x0A00_0101, 8998);
        }
        final long candidateBytes = LiveHeap.bytes() - before - (16L + 4L * COUNT);

        final IceCandidate[] locals = new IceCandidate[6];
        final IceCandidate[] remotes = new IceCandidate[4];
        for (int i = 0; i < 6; i++)
        {
            locals[i] = candidates[i];
        }
        for (int i = 0; i < 4; i++)
        {
            remotes[i] = candidates[10 + i];
        }
        final int lists = 10_000;
        final long beforeLists = LiveHeap.bytes();
        final IceCheckList[] checkLists = new IceCheckList[lists];
        for (int i = 0; i < lists; i++)
        {
            checkLists[i] = new IceCheckList(IceLimits.PJNATH);
        }
        final long listBytes = LiveHeap.bytes() - beforeLists - (16L + 4L * lists);
        final long beforeDefault = LiveHeap.bytes();
        for (int i = 0; i < lists; i++)
        {
            checkLists[i] = new IceCheckList(IceLimits.DEFAULT);
        }
        final long defaultListBytes = LiveHeap.bytes() - beforeDefault;

        System.out.printf("IceCandidate: %.1f B each (shared foundation); IceCheckList PJNATH (32 pairs): %.1f B"
                + " = %.1f B/pair slot; IceCheckList DEFAULT (100 pairs): %.1f B = %.1f B/pair slot%n",
            (double) candidateBytes / COUNT, (double) listBytes / lists, (double) listBytes / lists / 32,
            (double) (listBytes + defaultListBytes) / lists, (double) (listBytes + defaultListBytes) / lists / 100);
        assertEquals(COUNT, candidates.length);
        assertEquals(lists, checkLists.length);
        assertEquals(0, checkLists[0].form(true, locals, 0, remotes, 0, true));
    }
}
