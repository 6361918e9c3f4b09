package io.sipline.container.replication;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a distributable application's session leaves in the grid at a dialog boundary: the application session's
 * id, application, expiry and attributes, its SIP sessions with their dialog state, and its pending servlet timers.
 * A transaction in flight is not part of it: a node that takes the call over continues from the last boundary.
 * <p>
 * Immutable; made on the owning shard, encoded ({@link SnapshotCodec}) and written from another thread.
 *
 * @param id          the application session's id (the grid key its SIP sessions are grouped under).
 * @param application the name of the application that owns it.
 * @param node        the cluster node that wrote it (its owner then).
 * @param version     increases with every write of the same session, so a reader can tell an older one.
 * @param createdMs   creation time, epoch milliseconds.
 * @param expiresAtMs when the session expires (JSR 289 §6.1.2), epoch milliseconds; 0 for never.
 * @param attributes  the attributes, each serialized by the application's class loader.
 * @param sessions    its SIP sessions.
 * @param timers      its pending servlet timers.
 */
public record ApplicationSnapshot(String id, String application, int node, long version, long createdMs,
    long expiresAtMs, Map<String, byte[]> attributes, List<DialogSnapshot> sessions, List<TimerSnapshot> timers)
{
    public ApplicationSnapshot
    {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(application, "application");
        attributes = Map.copyOf(attributes);
        sessions = List.copyOf(sessions);
        timers = List.copyOf(timers);
    }

    /**
     * One SIP session and its dialog (RFC 3261 §12: Call-ID, tags, URIs, remote target, route set, CSeqs).
     *
     * @param id          the SIP session's id, unique within its application session.
     * @param state       the JSR 289 session state ({@code INITIAL}, {@code EARLY}, {@code CONFIRMED},
     *                    {@code TERMINATED}).
     * @param uac         whether this side sent the dialog-creating request (RFC 3261 §12.1.2).
     * @param handler     the servlet that handles the session's requests (JSR 289 {@code setHandler}), or null.
     * @param callId      the dialog's Call-ID.
     * @param localTag    our tag.
     * @param remoteTag   the peer's tag; null before a dialog.
     * @param localUri    our URI (From of our requests).
     * @param remoteUri   the peer's URI (To of our requests).
     * @param remoteTarget the peer's Contact URI; null before a dialog.
     * @param routeSet    the route set, first hop first.
     * @param localCSeq   the last CSeq number we sent.
     * @param remoteCSeq  the last CSeq number we received; -1 for none.
     * @param linkedId    the id of the session a B2BUA linked to this one in the same application session, or null.
     * @param attributes  the attributes, serialized.
     */
    public record DialogSnapshot(String id, String state, boolean uac, String handler, String callId, String localTag,
        String remoteTag, String localUri, String remoteUri, String remoteTarget, List<String> routeSet, long localCSeq,
        long remoteCSeq, String linkedId, Map<String, byte[]> attributes)
    {
        public DialogSnapshot
        {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(callId, "callId");
            routeSet = List.copyOf(routeSet);
            attributes = Map.copyOf(attributes);
        }

        /** The same dialog without attributes: comparable with {@code equals} (arrays compare by identity). */
        public DialogSnapshot withoutAttributes()
        {
            return new DialogSnapshot(id, state, uac, handler, callId, localTag, remoteTag, localUri, remoteUri,
                remoteTarget, routeSet, localCSeq, remoteCSeq, linkedId, Map.of());
        }
    }

    /**
     * A pending servlet timer (JSR 289 §6.3) or session expiry, to fire on whichever node owns the session then.
     *
     * @param id         the timer's id.
     * @param fireAtMs   when it fires next, epoch milliseconds.
     * @param periodMs   its period; 0 for a one-shot timer.
     * @param fixedRate  whether a repeating timer keeps a fixed rate.
     * @param info       its info object, serialized; null for none.
     */
    public record TimerSnapshot(String id, long fireAtMs, long periodMs, boolean fixedRate, byte[] info)
    {
        public TimerSnapshot
        {
            Objects.requireNonNull(id, "id");
        }
    }
}
