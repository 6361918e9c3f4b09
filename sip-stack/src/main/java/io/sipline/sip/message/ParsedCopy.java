package io.sipline.sip.message;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import io.netty.buffer.ByteBuf;

/**
 * A parsed message carried to another thread without parsing it twice: {@link #write} appends the message's bytes and
 * then its parse (the start line's spans, every header entry, what the parser located, its outcome) to a buffer;
 * {@link #read} copies both into a message's own array and restores the parse, so that the message answers every
 * accessor as a fresh parse of the same bytes would, without scanning them.
 * <pre>
 *   buffer:  [ message bytes ][ 34 fixed ints ][ 6 ints per header entry ][ n | 0 ]
 * </pre>
 * {@code n} counts the ints of the parse before it. Ints are big-endian, written two at a time as one long with
 * absolute {@code setLong} (see {@link ByteBufCopy} for why not a bulk copy). Positions are stored relative to the
 * message's first byte (a stream's message may start inside its connection's buffer); negative ones (absent) stay
 * as they are. Not carried, as after a parse: the Strings a message caches (the reader's message starts with none),
 * {@link SipMessage#receivedAtNanos()} (its caller sets it) and the parser's scratch views (used only while parsing).
 *
 * <p><b>Buffers.</b> Both methods borrow the buffer: {@link #write} moves its writer index, {@link #read} moves no
 * index; the reader's message owns its copy (its own array), so the buffer may be released when {@link #read}
 * returns. Only a buffer {@link #write} filled may be read.
 *
 * <p>Stateless; thread-safe. The writing thread owns the buffer until it hands it over (a queue's release and acquire
 * order the writes before the reads); the message read into belongs to the reading thread.
 */
public final class ParsedCopy
{
    /** Ints of the fixed part: the start line, the located values and the outcome, padded to an even count. */
    static final int FIXED = 34;
    /** The slot of the fixed part that holds the header count. */
    private static final int HEADER_COUNT_SLOT = 11;
    /** Bytes after the parse: its int count and a pad, one long. */
    private static final int TRAILER = Long.BYTES;
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final SipMethod[] METHODS = SipMethod.values();
    private static final ParseResult[] RESULTS = ParseResult.values();

    private ParsedCopy()
    {
    }

    /** Bytes {@link #write} appends for {@code m}: its bytes and its parse. */
    public static int size(final SipMessage m)
    {
        return m.length() + (FIXED + m.headerCount * SipMessage.STRIDE) * Integer.BYTES + TRAILER;
    }

    /**
     * Appends {@code m}'s bytes ({@link SipMessage#length()} of them from its first byte) and its parse to
     * {@code dst} at its writer index, which moves past them; {@code dst} grows if needed.
     *
     * @param m   borrowed; not changed.
     * @param dst borrowed.
     */
    public static void write(final SipMessage m, final ByteBuf dst)
    {
        dst.ensureWritable(size(m)); // once, before the bytes: one growth at most
        ByteBufCopy.write(m.buf, m.offset, m.length(), dst);
        final int entries = m.headerCount * SipMessage.STRIDE;
        final int d = -m.offset;
        int at = dst.writerIndex();
        // slots 0-33, as readFixed reads them
        at = put(dst, at, m.request ? 1 : 0, ordinal(m.method));
        at = put(dst, at, shift(m.methodStart, d), shift(m.methodEnd, d));
        at = put(dst, at, shift(m.uriStart, d), shift(m.uriEnd, d));
        at = put(dst, at, shift(m.versionStart, d), shift(m.versionEnd, d));
        at = put(dst, at, m.statusCode, shift(m.reasonStart, d));
        at = put(dst, at, shift(m.reasonEnd, d), m.headerCount);
        at = put(dst, at, shift(m.callIdStart, d), shift(m.callIdEnd, d));
        dst.setLong(at, m.cseqNumber);
        at += Long.BYTES;
        at = put(dst, at, ordinal(m.cseqMethod), shift(m.cseqMethodStart, d));
        at = put(dst, at, shift(m.cseqMethodEnd, d), m.contentLength);
        at = put(dst, at, m.maxForwards, shift(m.fromTagStart, d));
        at = put(dst, at, shift(m.fromTagEnd, d), shift(m.toTagStart, d));
        at = put(dst, at, shift(m.toTagEnd, d), shift(m.topViaBranchStart, d));
        at = put(dst, at, shift(m.topViaBranchEnd, d), m.topViaChecked ? 1 : 0);
        at = put(dst, at, shift(m.bodyStart, d), m.bodyLength);
        at = put(dst, at, m.frameLength, m.result.ordinal());
        at = put(dst, at, shift(m.errorOffset, d), 0);
        final int[] idx = m.index;
        for (int i = 0; i < entries; i += SipMessage.STRIDE)
        {
            // [ name id | flags ][ name start ][ name end ][ value start ][ value end ][ line end ]
            at = put(dst, at, idx[i], shift(idx[i + 1], d));
            at = put(dst, at, shift(idx[i + 2], d), shift(idx[i + 3], d));
            at = put(dst, at, shift(idx[i + 4], d), shift(idx[i + 5], d));
        }
        at = put(dst, at, FIXED + entries, 0);
        dst.writerIndex(at);
    }

    /**
     * Rebinds {@code into} to a copy {@link #write} made: copies the readable bytes of {@code src} into the message's
     * own array and restores the parse written after the message bytes. Allocates only when the message's own array
     * or index has to grow.
     *
     * @param src  borrowed; no index moved; may be released when this returns.
     * @param into the reusable message to fill; its cached Strings are dropped, its arrival time is left as it was.
     * @return the outcome of the original parse, also on {@code into.result()}.
     * @throws IllegalArgumentException when {@code src} does not end with a parse {@link #write} wrote.
     */
    public static ParseResult read(final ByteBuf src, final SipMessage into)
    {
        final int total = src.readableBytes();
        final byte[] b = into.ownBuffer(total);
        ByteBufCopy.copyOut(src, src.readerIndex(), b, 0, total);
        final int ints = total >= TRAILER ? intAt(b, total - TRAILER) : -1;
        if (ints < FIXED || ints > (total - TRAILER) / Integer.BYTES || (ints - FIXED) % SipMessage.STRIDE != 0)
        {
            throw new IllegalArgumentException("not a parsed copy: " + total + " bytes, " + ints + " ints");
        }
        final int length = total - TRAILER - ints * Integer.BYTES;
        into.reset(b, 0, length);
        readFixed(b, length, into);
        final int headers = slot(b, length, HEADER_COUNT_SLOT);
        final int entries = headers * SipMessage.STRIDE;
        if (entries != ints - FIXED)
        {
            throw new IllegalArgumentException("not a parsed copy: " + headers + " headers in " + ints + " ints");
        }
        int[] idx = into.index;
        if (idx.length < entries)
        {
            idx = into.index = new int[Math.max(entries, idx.length * 2)];
        }
        int at = length + FIXED * Integer.BYTES;
        for (int i = 0; i < entries; i++, at += Integer.BYTES)
        {
            idx[i] = intAt(b, at);
        }
        into.headerCount = headers;
        final int[] first = into.firstById;
        for (int h = 0; h < headers; h++)
        {
            // the first entry of each name, as addHeader records it while parsing
            final int id = into.headerName(h).ordinal();
            if (first[id] < 0)
            {
                first[id] = h;
            }
        }
        return into.result;
    }

    /**
     * The fixed ints, in the order {@link #write} puts them (slot 11, the header count, is read with the entries);
     * positions need no shift, as the copy starts at 0.
     */
    private static void readFixed(final byte[] b, final int from, final SipMessage m)
    {
        m.request = slot(b, from, 0) != 0;
        m.method = method(slot(b, from, 1));
        m.methodStart = slot(b, from, 2);
        m.methodEnd = slot(b, from, 3);
        m.uriStart = slot(b, from, 4);
        m.uriEnd = slot(b, from, 5);
        m.versionStart = slot(b, from, 6);
        m.versionEnd = slot(b, from, 7);
        m.statusCode = slot(b, from, 8);
        m.reasonStart = slot(b, from, 9);
        m.reasonEnd = slot(b, from, 10);
        m.callIdStart = slot(b, from, 12);
        m.callIdEnd = slot(b, from, 13);
        m.cseqNumber = (long)slot(b, from, 14) << 32 | slot(b, from, 15) & 0xFFFF_FFFFL;
        m.cseqMethod = method(slot(b, from, 16));
        m.cseqMethodStart = slot(b, from, 17);
        m.cseqMethodEnd = slot(b, from, 18);
        m.contentLength = slot(b, from, 19);
        m.maxForwards = slot(b, from, 20);
        m.fromTagStart = slot(b, from, 21);
        m.fromTagEnd = slot(b, from, 22);
        m.toTagStart = slot(b, from, 23);
        m.toTagEnd = slot(b, from, 24);
        m.topViaBranchStart = slot(b, from, 25);
        m.topViaBranchEnd = slot(b, from, 26);
        m.topViaChecked = slot(b, from, 27) != 0;
        m.bodyStart = slot(b, from, 28);
        m.bodyLength = slot(b, from, 29);
        m.frameLength = slot(b, from, 30);
        m.result = RESULTS[slot(b, from, 31)];
        m.errorOffset = slot(b, from, 32);
    }

    /** Int number {@code slot} of the parse that starts at {@code from}. */
    private static int slot(final byte[] b, final int from, final int slot)
    {
        return intAt(b, from + slot * Integer.BYTES);
    }

    /** Writes two ints as one big-endian long at {@code at}; returns the position after them. */
    private static int put(final ByteBuf dst, final int at, final int first, final int second)
    {
        dst.setLong(at, (long)first << 32 | second & 0xFFFF_FFFFL);
        return at + Long.BYTES;
    }

    private static int intAt(final byte[] b, final int at)
    {
        return (int)INT_BE.get(b, at);
    }

    /** A position moved by {@code d}; a negative one means absent and stays. */
    private static int shift(final int position, final int d)
    {
        return position < 0 ? position : position + d;
    }

    private static int ordinal(final SipMethod method)
    {
        return null == method ? 0 : method.ordinal() + 1;
    }

    private static SipMethod method(final int ordinal)
    {
        return 0 == ordinal ? null : METHODS[ordinal - 1];
    }
}
