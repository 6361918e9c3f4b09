package io.sipline.container.replication;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sipline.container.replication.ApplicationSnapshot.DialogSnapshot;
import io.sipline.container.replication.ApplicationSnapshot.TimerSnapshot;

/**
 * The bytes of an {@link ApplicationSnapshot} in the grid: compact, versioned, and readable by any node whatever grid
 * stores them (a grid sees only a byte array).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |     'S'       |     'L'       |   FORMAT (1)  |     node      |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  version, created, expires: 3 x 64 bits                      |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  id, application: modified UTF-8 strings (16-bit length)       |
 * |  attributes: count (32), then name string, byte length, bytes |
 * |  sessions: count, each its fields in record order             |
 * |  timers: count, each its fields in record order               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * A nullable string has a boolean before it; a nullable byte array has length -1 when null.
 * <p>
 * Stateless; thread-safe. Encoding returns an owned array; decoding borrows the given one.
 */
public final class SnapshotCodec
{
    private static final int MAGIC = ('S' << 8) | 'L';
    private static final int FORMAT = 2;

    private SnapshotCodec()
    {
    }

    /** The snapshot's bytes (returns owned). */
    public static byte[] encode(final ApplicationSnapshot s)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeShort(MAGIC);
            out.writeByte(FORMAT);
            out.writeByte(s.node());
            out.writeLong(s.version());
            out.writeLong(s.createdMs());
            out.writeLong(s.expiresAtMs());
            out.writeUTF(s.id());
            out.writeUTF(s.application());
            writeAttributes(out, s.attributes());
            out.writeInt(s.sessions().size());
            for (final DialogSnapshot d : s.sessions())
            {
                writeDialog(out, d);
            }
            out.writeInt(s.timers().size());
            for (final TimerSnapshot t : s.timers())
            {
                out.writeUTF(t.id());
                out.writeLong(t.fireAtMs());
                out.writeLong(t.periodMs());
                out.writeBoolean(t.fixedRate());
                writeBytes(out, t.info());
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * The snapshot in {@code bytes} (borrowed).
     *
     * @throws IllegalArgumentException when the bytes are not a snapshot of a format this node reads.
     */
    public static ApplicationSnapshot decode(final byte[] bytes)
    {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes)))
        {
            if (in.readUnsignedShort() != MAGIC)
            {
                throw new IllegalArgumentException("not an application session snapshot");
            }
            final int format = in.readUnsignedByte();
            if (format != FORMAT)
            {
                throw new IllegalArgumentException("snapshot format " + format + "; this node reads " + FORMAT);
            }
            final int node = in.readUnsignedByte();
            final long version = in.readLong();
            final long created = in.readLong();
            final long expires = in.readLong();
            final String id = in.readUTF();
            final String application = in.readUTF();
            final Map<String, byte[]> attributes = readAttributes(in);
            final int sessionCount = count(in);
            final List<DialogSnapshot> sessions = new ArrayList<>(sessionCount);
            for (int i = 0; i < sessionCount; i++)
            {
                sessions.add(readDialog(in));
            }
            final int timerCount = count(in);
            final List<TimerSnapshot> timers = new ArrayList<>(timerCount);
            for (int i = 0; i < timerCount; i++)
            {
                timers.add(new TimerSnapshot(in.readUTF(), in.readLong(), in.readLong(), in.readBoolean(),
                    readBytes(in)));
            }
            return new ApplicationSnapshot(id, application, node, version, created, expires, attributes, sessions,
                timers);
        }
        catch (final IOException e)
        {
            throw new IllegalArgumentException("a truncated application session snapshot: " + e, e);
        }
    }

    private static void writeDialog(final DataOutputStream out, final DialogSnapshot d) throws IOException
    {
        out.writeUTF(d.id());
        writeString(out, d.state());
        out.writeBoolean(d.uac());
        writeString(out, d.handler());
        out.writeUTF(d.callId());
        writeString(out, d.localTag());
        writeString(out, d.remoteTag());
        writeString(out, d.localUri());
        writeString(out, d.remoteUri());
        writeString(out, d.remoteTarget());
        out.writeInt(d.routeSet().size());
        for (final String route : d.routeSet())
        {
            out.writeUTF(route);
        }
        out.writeLong(d.localCSeq());
        out.writeLong(d.remoteCSeq());
        writeString(out, d.linkedId());
        writeAttributes(out, d.attributes());
    }

    private static DialogSnapshot readDialog(final DataInputStream in) throws IOException
    {
        final String id = in.readUTF();
        final String state = readString(in);
        final boolean uac = in.readBoolean();
        final String handler = readString(in);
        final String callId = in.readUTF();
        final String localTag = readString(in);
        final String remoteTag = readString(in);
        final String localUri = readString(in);
        final String remoteUri = readString(in);
        final String remoteTarget = readString(in);
        final int routes = count(in);
        final List<String> routeSet = new ArrayList<>(routes);
        for (int i = 0; i < routes; i++)
        {
            routeSet.add(in.readUTF());
        }
        final long localCSeq = in.readLong();
        final long remoteCSeq = in.readLong();
        final String linked = readString(in);
        return new DialogSnapshot(id, state, uac, handler, callId, localTag, remoteTag, localUri, remoteUri,
            remoteTarget, routeSet,
            localCSeq, remoteCSeq, linked, readAttributes(in));
    }

    private static void writeAttributes(final DataOutputStream out, final Map<String, byte[]> attributes)
        throws IOException
    {
        out.writeInt(attributes.size());
        for (final Map.Entry<String, byte[]> e : attributes.entrySet())
        {
            out.writeUTF(e.getKey());
            writeBytes(out, e.getValue());
        }
    }

    private static Map<String, byte[]> readAttributes(final DataInputStream in) throws IOException
    {
        final int n = count(in);
        final Map<String, byte[]> attributes = new LinkedHashMap<>(Math.max(4, n * 2));
        for (int i = 0; i < n; i++)
        {
            final String name = in.readUTF();
            final byte[] value = readBytes(in);
            if (null == value)
            {
                throw new IOException("attribute " + name + " has no value");
            }
            attributes.put(name, value);
        }
        return attributes;
    }

    private static void writeString(final DataOutputStream out, final String s) throws IOException
    {
        out.writeBoolean(null != s);
        if (null != s)
        {
            out.writeUTF(s);
        }
    }

    private static String readString(final DataInputStream in) throws IOException
    {
        return in.readBoolean() ? in.readUTF() : null;
    }

    private static void writeBytes(final DataOutputStream out, final byte[] b) throws IOException
    {
        out.writeInt(null == b ? -1 : b.length);
        if (null != b)
        {
            out.write(b);
        }
    }

    private static byte[] readBytes(final DataInputStream in) throws IOException
    {
        final int n = in.readInt();
        if (n < -1 || n > in.available())
        {
            throw new IOException("a byte array of " + n + " bytes with " + in.available() + " left");
        }
        return n < 0 ? null : in.readNBytes(n);
    }

    /** A count that the remaining bytes can hold (a corrupt count must not allocate gigabytes). */
    private static int count(final DataInputStream in) throws IOException
    {
        final int n = in.readInt();
        if (n < 0 || n > in.available())
        {
            throw new IOException("a count of " + n + " with " + in.available() + " bytes left");
        }
        return n;
    }
}
