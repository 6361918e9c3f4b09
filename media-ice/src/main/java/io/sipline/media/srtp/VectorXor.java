package io.sipline.media.srtp;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The keystream XOR of AES counter mode with the JDK Vector API: 64 octets per step with AVX-512, 32 with AVX2.
 * Kept in its own class so that {@link JcaSrtpBackend} loads it only when {@code jdk.incubator.vector} is in the boot
 * layer ({@link JcaSrtpBackend.EcbCtr#VECTOR_XOR}); without the module the XOR runs eight octets at a time.
 *
 * <p>Stateless and thread-safe.
 */
final class VectorXor
{
    /** The preferred byte species of this machine. */
    static final VectorSpecies<Byte> SPECIES = ByteVector.SPECIES_PREFERRED;

    private VectorXor()
    {
    }

    /**
     * XORs {@code keystream[ksOffset, ksOffset + n)} into {@code buffer[offset, offset + n)} for the largest
     * {@code n <= length} that is a multiple of the vector length.
     *
     * @param buffer    the packet, borrowed.
     * @param offset    where the payload starts.
     * @param keystream the keystream, borrowed, at least {@code ksOffset + length} octets.
     * @param ksOffset  where the keystream starts.
     * @param length    octets to XOR at most.
     * @return {@code n}, the octets done; the caller does the tail.
     */
    static int xor(final byte[] buffer, final int offset, final byte[] keystream, final int ksOffset,
        final int length)
    {
        final int bound = SPECIES.loopBound(length);
        for (int i = 0; i < bound; i += SPECIES.length())
        {
            ByteVector.fromArray(SPECIES, buffer, offset + i)
                .lanewise(VectorOperators.XOR, ByteVector.fromArray(SPECIES, keystream, ksOffset + i))
                .intoArray(buffer, offset + i);
        }
        return bound;
    }
}
