package io.sipline.media.srtp;

/**
 * How an {@link SrtpContext} finds the stream of an SSRC. The default is {@link SsrcIndexStreamLookup}, over the SIMD
 * SSRC index of {@code io.sipline.media.ssrc}; a caller may bring another (a test double, a lookup shared with an
 * RTP relay) through {@link SrtpContext#SrtpContext(SrtpPolicy, SrtpContext.Direction, SrtpStreamLookup)}.
 *
 * <p>{@link #find} is on the per-packet path and must not allocate; {@link #add} and {@link #remove} run when a stream
 * starts or ends. Implementations are not thread-safe and are owned by the context's media thread.
 *
 * <p>A context with exactly one stream answers its packets itself, from two fields of its own, and does not call
 * {@link #find} then (see {@link SrtpContext#stream(int)}): a lookup is asked only at 0 and at 2 or more streams, and
 * tells the context which stream is its only one through {@link #onlyStream()} after every add and remove.
 */
public interface SrtpStreamLookup
{
    /**
     * The stream of {@code ssrc}.
     *
     * @param ssrc a 32-bit SSRC.
     * @return the stream, or null.
     */
    SrtpStream find(int ssrc);

    /**
     * Adds a stream under {@link SrtpStream#ssrc()}, which is not present.
     *
     * @param stream the stream; ownership stays with the context.
     * @return false when the lookup is full.
     */
    boolean add(SrtpStream stream);

    /**
     * Removes the stream of {@code ssrc}.
     *
     * @param ssrc a 32-bit SSRC.
     * @return the removed stream, or null.
     */
    SrtpStream remove(int ssrc);

    /**
     * Number of streams.
     *
     * @return the count.
     */
    int size();

    /**
     * The only stream, for the context's single-stream path: read after each {@link #add} and {@link #remove}, never
     * per packet. Must not allocate.
     *
     * @return the stream when {@link #size()} is 1, else null.
     */
    SrtpStream onlyStream();

    /**
     * Whether {@link #add} would fail.
     *
     * @return true when no stream can be added.
     */
    boolean isFull();
}
