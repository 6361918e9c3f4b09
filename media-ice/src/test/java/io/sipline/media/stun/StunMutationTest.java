package io.sipline.media.stun;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * Property test: random mutations of valid messages (fixed seed, bounded count) never make the codec throw or loop.
 * Every reader is called on every indexed attribute of whatever parses.
 */
class StunMutationTest
{
    private static final long SEED = 0x5354_554EL;
    private static final int ROUNDS = 200_000;

    private final StunMessageFlyweight message = new StunMessageFlyweight();
    private final StunMessageFlyweight directMessage = new StunMessageFlyweight();
    private final StunIntegrity integrity = new StunIntegrity();
    private final StunCredential credential = StunCredential.shortTerm(StunTestVectors.SHORT_TERM_PASSWORD);
    private final StunAddress address = new StunAddress();
    private final byte[] probe = {'e', 'v', 't', 'j'};

    @Test
    void shouldNeverThrowNorLoopOnMutatedMessages()
    {
        final byte[][] seeds = {
            StunTestVectors.SAMPLE_REQUEST, StunTestVectors.SAMPLE_IPV4_RESPONSE, StunTestVectors.SAMPLE_IPV6_RESPONSE,
            StunTestVectors.SAMPLE_LONG_TERM_REQUEST, StunTestVectors.SAMPLE_SHA256_REQUEST};
        final ByteBuffer direct = ByteBuffer.allocateDirect(256);
        final long[] parsed = new long[1];
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final SplittableRandom random = new SplittableRandom(SEED);
            final byte[] work = new byte[256];
            for (int round = 0; round < ROUNDS; round++)
            {
                final byte[] seed = seeds[round % seeds.length];
                int length = seed.length;
                System.arraycopy(seed, 0, work, 0, length);
                final int mutations = 1 + random.nextInt(4);
                for (int m = 0; m < mutations; m++)
                {
                    switch (random.nextInt(5))
                    {
                        case 0: // flip a bit anywhere
                            work[random.nextInt(Math.max(1, length))] ^= (byte)(1 << random.nextInt(8));
                            break;
                        case 1: // random byte in the length field or among the attributes
                            work[length <= 20 || random.nextBoolean() ?
                                2 + random.nextInt(2) : 20 + random.nextInt(length - 20)] = (byte)random.nextInt(256);
                            break;
                        case 2: // truncate
                            length = random.nextInt(length + 1);
                            break;
                        case 3: // extend with garbage
                        {
                            final int extra = random.nextInt(work.length - length + 1);
                            for (int i = 0; i < extra; i++)
                            {
                                work[length + i] = (byte)random.nextInt(256);
                            }
                            length += extra;
                            break;
                        }
                        default: // make the length field claim everything we have (forces attribute walking)
                        {
                            final int claimed = Math.max(0, (length - 20) & ~3);
                            work[2] = (byte)(claimed >>> 8);
                            work[3] = (byte)claimed;
                            break;
                        }
                    }
                }
                if (exercise(message, message.wrap(work, 0, length)))
                {
                    parsed[0]++;
                }
                direct.clear();
                direct.put(0, work, 0, length);
                exercise(directMessage, directMessage.wrap(direct, 0, length));
            }
        });
        assertTrue(parsed[0] > ROUNDS / 20, "enough mutants still parse to exercise the readers: " + parsed[0]);
    }

    private boolean exercise(final StunMessageFlyweight m, final int result)
    {
        if (result < 0)
        {
            return false;
        }
        m.messageType();
        m.transactionIdHigh();
        m.transactionIdLow();
        m.firstMalformedAttribute();
        for (int i = 0; i < m.attributeCount(); i++)
        {
            m.attributeType(i);
            m.attributePaddedLength(i);
            m.readAddress(i, address);
            m.u32Value(i);
            m.u64Value(i);
            m.errorCode(i);
            m.errorReasonLength(i);
            m.passwordAlgorithm(i);
            final int count = m.passwordAlgorithmsCount(i);
            for (int k = 0; k < Math.max(1, count); k++)
            {
                m.passwordAlgorithmsAt(i, k);
            }
            for (int k = 0; k < m.unknownAttributesListCount(i); k++)
            {
                m.unknownAttributesListType(i, k);
            }
            m.valueStartsWith(i, probe);
            m.valueEquals(i, probe, 0, probe.length);
        }
        m.priority();
        m.verifyMessageIntegrity(integrity, credential);
        m.verifyMessageIntegritySha256(integrity, credential);
        m.verifyFingerprint(integrity);
        return true;
    }
}
