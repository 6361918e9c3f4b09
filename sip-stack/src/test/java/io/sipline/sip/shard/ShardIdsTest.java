package io.sipline.sip.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class ShardIdsTest
{
    private static int shardOf(final String s)
    {
        final byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return ShardIds.shardOf(b, 0, b.length);
    }

    @Test
    void shouldDecodeShardFromBranchTagAndCallId()
    {
        for (final int shard : new int[] {0, 1, 7, 16, 255})
        {
            final ShardIds ids = new ShardIds(shard, 42);
            assertEquals(shard, shardOf(ids.appendBranch(new StringBuilder()).toString()));
            assertEquals(shard, shardOf(ids.appendId(new StringBuilder()).toString()));
            assertEquals(shard, shardOf(ids.appendId(new StringBuilder()).append("@192.0.2.1").toString()));
            final byte[] raw = new byte[ShardIds.ID_LENGTH];
            ids.writeId(raw, 0);
            assertEquals(shard, ShardIds.shardOf(raw, 0, raw.length));
            assertEquals(0, ShardIds.nodeOf(raw, 0, raw.length), "outside a cluster the node is 0");
        }
    }

    @Test
    void shouldDecodeNodeAndShardTogether()
    {
        for (final int node : new int[] {0, 1, 2, 15, 16, 200, 255})
        {
            final ShardIds ids = new ShardIds(5, node, 42);
            final String branch = ids.appendBranch(new StringBuilder()).toString();
            final String tag = ids.appendId(new StringBuilder()).toString();
            final String callId = ids.appendId(new StringBuilder()).append("@192.0.2.1").toString();
            final byte[] raw = new byte[ShardIds.ID_LENGTH];
            ids.writeId(raw, 0);
            for (final String id : new String[] {branch, tag, callId})
            {
                final byte[] b = id.getBytes(StandardCharsets.US_ASCII);
                assertEquals(node, ShardIds.nodeOf(b, 0, b.length), id);
                assertEquals(node, ShardIds.nodeOf(id), id);
                assertEquals(5, ShardIds.shardOf(b, 0, b.length), id);
            }
            assertEquals(node, ShardIds.nodeOf(raw, 0, raw.length));
        }
    }

    @Test
    void shouldWriteTheSameBranchFromItsRandomPartEveryTime()
    {
        final ShardIds ids = new ShardIds(200, 17, 42);
        final long random = ids.nextRandom();
        final String branch = ShardIds.appendBranch(new StringBuilder(), ids.origin(), random).toString();
        assertEquals(branch, ShardIds.appendBranch(new StringBuilder(), ids.origin(), random).toString());
        assertEquals("z9hG4bK".length() + ShardIds.ID_LENGTH, branch.length());
        final byte[] b = branch.getBytes(StandardCharsets.US_ASCII);
        assertEquals(200, ShardIds.shardOf(b, 0, b.length));
        assertEquals(17, ShardIds.nodeOf(b, 0, b.length));
        assertEquals(Long.toHexString(random | 1L << 52).substring(1), branch.substring(branch.length() - 13));
        assertNotEquals(branch, ShardIds.appendBranch(new StringBuilder(), ids.origin(), ids.nextRandom()).toString());
    }

    @Test
    void shouldReadEachCharOfAnIdFromItsNumbers()
    {
        final ShardIds ids = new ShardIds(200, 17, 42);
        for (int n = 0; n < 100; n++)
        {
            final long random = ids.nextRandom();
            final String id = ShardIds.appendId(new StringBuilder(), ids.origin(), random).toString();
            for (int i = 0; i < ShardIds.ID_LENGTH; i++)
            {
                assertEquals(id.charAt(i), ShardIds.idChar(ids.origin(), random, i));
            }
        }
        assertThrows(IndexOutOfBoundsException.class, () -> ShardIds.idChar(0, 0, ShardIds.ID_LENGTH));
    }

    @Test
    void shouldNotClaimANodeForForeignIds()
    {
        assertEquals(-1, ShardIds.nodeOf("a84b4c76e66710@pc33.atlanta.example.com"));
        assertEquals(-1, ShardIds.nodeOf("z9hG4bK776asdhds"));
        assertEquals(-1, ShardIds.nodeOf("s0001zzzzzzzzzzzzz"));
        assertEquals(-1, ShardIds.nodeOf((CharSequence)null));
        final byte[] oldForm = "s01abcdef0123456".getBytes(StandardCharsets.US_ASCII);
        assertEquals(-1, ShardIds.nodeOf(oldForm, 0, oldForm.length), "16 characters are not an id of ours");
    }

    @Test
    void shouldNotClaimForeignIds()
    {
        assertEquals(-1, shardOf("z9hG4bK776asdhds"));
        assertEquals(-1, shardOf("1928301774"));
        assertEquals(-1, shardOf("a84b4c76e66710@pc33.atlanta.example.com"));
        assertEquals(-1, shardOf("s0Fzzzzzzzzzzzzz"));
        assertEquals(-1, shardOf("s01234567890123456789"));
    }

    @Test
    void shouldMakeDistinctIds()
    {
        final ShardIds ids = new ShardIds(3, 1);
        assertNotEquals(ids.appendId(new StringBuilder()).toString(), ids.appendId(new StringBuilder()).toString());
    }

    @Test
    void shouldSpreadCallIdsOverShardsStably()
    {
        final byte[] c = "a84b4c76e66710@pc33.atlanta.example.com".getBytes(StandardCharsets.US_ASCII);
        final int s = ShardIds.shardForCallId(c, 0, c.length, 4);
        assertEquals(s, ShardIds.shardForCallId(c, 0, c.length, 4));
        final int[] counts = new int[4];
        for (int i = 0; i < 4000; i++)
        {
            final byte[] id = ("call-" + i + "@host").getBytes(StandardCharsets.US_ASCII);
            counts[ShardIds.shardForCallId(id, 0, id.length, 4)]++;
        }
        for (final int n : counts)
        {
            assertEquals(1000, n, 150);
        }
    }

    @Test
    void shouldRefuseShardOutOfRange()
    {
        assertThrows(IllegalArgumentException.class, () -> new ShardIds(256, 0));
        assertThrows(IllegalArgumentException.class, () -> new ShardIds(0, 256, 0));
        assertThrows(IllegalArgumentException.class, () -> new ShardIds(0, -1, 0));
    }
}
