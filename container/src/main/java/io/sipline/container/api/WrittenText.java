package io.sipline.container.api;

import io.netty.buffer.ByteBuf;

/**
 * A header value the container writes from its parts, without a String of the whole: a From or To with its tag
 * ({@link TaggedParty}), a CSeq ({@link CSeqText}), an id the container made ({@link IdText}). A header section
 * holds it as any text, makes it into a String only when someone reads the header, and has it write itself when the
 * message is sent.
 * <p>
 * Implementations are immutable, so shared by messages of any thread, and hold no buffer.
 */
public interface WrittenText extends CharSequence
{
    /**
     * Writes the value as UTF-8.
     *
     * @param out borrowed; bytes appended.
     */
    void writeTo(ByteBuf out);
}
