package io.sipline.sip.dialog;

import java.util.Arrays;
import java.util.List;

import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.HeaderSource;
import io.sipline.sip.message.NameAddrFlyweight;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.message.SipUriFlyweight;

/**
 * What one message does to one dialog record (RFC 3261 §12): the copying and the rules of the {@link DialogLayer},
 * for its table, and of a transaction user that indexes its dialogs itself (the container's SIP sessions, each the
 * face of one record, derived sessions of a forked request included).
 * <pre>
 *   UAS  prepareUas(request)       §12.1.1 ids, parties, target (Contact), route set (Record-Route in order), CSeq
 *        localTag(d, tag); onUasResponse(d, INVITE, 180|200)   early | confirmed
 *   UAC  prepareUac(...)           §12.1.2 before any response; onUacResponse(d, ...) tagged 1xx/2xx: remote tag,
 *        target, route set (reversed); a 2xx of the same tag confirms and recomputes them (§13.2.2.4); rejectUac(d)
 *        after a non-2xx final: initial again (JSR 289 §6.2.1)
 *   both acceptRequest(d, ...)     §12.2.2 CSeq order; refreshTarget(d, message) §12.2.1.2, §12.2.2; sent(d, cseq)
 * </pre>
 * Messages are borrowed as {@link HeaderSource}s for the duration of a call; text is copied into the record's byte
 * slots. Nothing is allocated once the records' arrays have grown, except by a pool that misses.
 * <p>
 * Not thread-safe: it owns scratch flyweights and its pool is the shard's; one per shard.
 */
public final class DialogRecords
{
    private final DialogPool pool;
    private final NameAddrFlyweight address = new NameAddrFlyweight();
    private final SipUriFlyweight uri = new SipUriFlyweight();
    private final ByteSlot scratch = new ByteSlot(64);
    private int[] entries = new int[16];
    private DialogFailure lastFailure = DialogFailure.NONE;

    public DialogRecords(final DialogPool pool)
    {
        this.pool = pool;
    }

    public DialogPool pool()
    {
        return pool;
    }

    /** Why the last call that copied from a message fell short; {@link DialogFailure#NONE} after a success. */
    public DialogFailure lastFailure()
    {
        return lastFailure;
    }

    // =================================================================================================================
    // UAS (§12.1.1)
    // =================================================================================================================

    /**
     * The record of a received request that may create a dialog, before our tag exists (§12.1.1): Call-ID, remote
     * tag (From), local and remote parties (To, From without tags), remote target (Contact), route set (Record-Route
     * in order), remote CSeq. An unusable Contact or Record-Route leaves the target or route set empty and is told by
     * {@link #lastFailure()}: the request is still served (it may create no dialog at all).
     *
     * @param request borrowed.
     * @param secure  it arrived over TLS with a sips Request-URI.
     * @return the record, initial, owned by the caller (give it back with {@link #release}).
     */
    public Dialog prepareUas(final HeaderSource request, final SipMethod method, final long cseq,
        final boolean secure)
    {
        lastFailure = DialogFailure.NONE;
        final Dialog d = pool.acquire();
        copyValue(request, HeaderName.CALL_ID, d.callId);
        // From first: its one parse gives both the remote tag and the remote party
        final boolean fromParty = copyAddress(request, HeaderName.FROM, d.remoteAddress, d.remoteUri);
        if (fromParty && address.hasTag())
        {
            d.remoteTag.set(request.buffer(), address.tagStart(), address.tagEnd());
        }
        else
        {
            d.remoteTag.clear(); // no From, no usable From, or a From without tag (an RFC 2543 peer, §12.1.1)
        }
        if (!copyAddress(request, HeaderName.TO, d.localAddress, d.localUri) || !fromParty)
        {
            lastFailure = DialogFailure.BAD_ADDRESS;
        }
        if (request.firstHeader(HeaderName.CONTACT) >= 0 && !refreshTarget(d, request))
        {
            lastFailure = DialogFailure.BAD_CONTACT;
        }
        if (!setRouteSet(request, d, false))
        {
            d.clearRoutes();
            lastFailure = DialogFailure.BAD_RECORD_ROUTE;
        }
        d.uac = false;
        d.prepared = true;
        d.secure = secure;
        d.remoteCSeq = cseq;
        d.localCSeq = Dialog.EMPTY_CSEQ;
        d.creatingMethod = method;
        d.creatingCSeq = cseq;
        d.state = DialogState.INITIAL;
        return d;
    }

    /** Sets our tag (the To tag of our responses, §12.1.1), when the transaction user makes it. Any thread. */
    public static void localTag(final Dialog d, final CharSequence tag)
    {
        d.localTag.set(tag);
    }

    /**
     * We sent a response to the request that created the record: a 1xx with our tag to an INVITE makes it early, a
     * 2xx confirms it (§12.1.1); a non-2xx final leaves it as it is (the transaction user ends it).
     */
    public void onUasResponse(final Dialog d, final int status)
    {
        if (status >= 200 && status < 300)
        {
            d.state = DialogState.CONFIRMED;
        }
        else if (status > 100 && status < 200 && d.state == DialogState.INITIAL &&
            d.creatingMethod == SipMethod.INVITE)
        {
            d.state = DialogState.EARLY;
        }
    }

    // =================================================================================================================
    // Both sides (§12.2)
    // =================================================================================================================

    /**
     * A request arrived in the dialog (§12.2.2): a CSeq lower than the remote CSeq is
     * {@link InDialogResult#OUT_OF_ORDER} (answer 500); otherwise the remote CSeq becomes the request's. ACK and
     * CANCEL reuse the INVITE's number and are never ordered.
     */
    public InDialogResult acceptRequest(final Dialog d, final SipMethod method, final long cseq)
    {
        if (method == SipMethod.ACK || method == SipMethod.CANCEL)
        {
            return InDialogResult.OK;
        }
        if (d.remoteCSeq != Dialog.EMPTY_CSEQ && cseq < d.remoteCSeq)
        {
            return InDialogResult.OUT_OF_ORDER;
        }
        d.remoteCSeq = cseq;
        return InDialogResult.OK;
    }

    /** Remote target := URI of the message's first Contact (§12.1.1, §12.2.1.2, §12.2.2); false when none usable. */
    public boolean refreshTarget(final Dialog d, final HeaderSource m)
    {
        final int i = m.firstHeader(HeaderName.CONTACT);
        if (i < 0 || !address(m, i) || address.isWildcard())
        {
            return false;
        }
        d.remoteTarget.set(m.buffer(), address.uriStart(), address.uriEnd());
        return true;
    }

    /**
     * We sent a request with {@code cseq} in the dialog: the local CSeq is at least its number (§12.2.1.1). Any
     * thread.
     */
    public static void sent(final Dialog d, final long cseq)
    {
        if (d.localCSeq == Dialog.EMPTY_CSEQ || cseq > d.localCSeq)
        {
            d.localCSeq = cseq;
        }
    }

    // =================================================================================================================
    // UAC (§12.1.2)
    // =================================================================================================================

    /**
     * The record of the dialog our dialog-creating request will make, before we send it (§12.1.2): Call-ID and local
     * tag (our From tag), the parties (From and To without tag: a name-addr, or an addr-spec, put in angle brackets),
     * the Request-URI as remote target until a response gives a Contact, the request's CSeq as local CSeq
     * ({@link Dialog#EMPTY_CSEQ} when not known yet). Initial and in no table.
     *
     * @return the record, or null with {@link #lastFailure()} {@link DialogFailure#BAD_ADDRESS} when an address has
     *         no URI.
     */
    public Dialog prepareUac(final CharSequence callId, final CharSequence localTag, final CharSequence localAddress,
        final CharSequence remoteAddress, final CharSequence requestUri, final long cseq)
    {
        lastFailure = DialogFailure.NONE;
        final Dialog d = pool.acquire();
        if (!setAddress(d.localAddress, d.localUri, localAddress) ||
            !setAddress(d.remoteAddress, d.remoteUri, remoteAddress))
        {
            lastFailure = DialogFailure.BAD_ADDRESS;
            pool.release(d);
            return null;
        }
        d.callId.set(callId);
        d.localTag.set(localTag);
        d.remoteTarget.set(requestUri);
        d.uac = true;
        d.prepared = true;
        d.localCSeq = cseq;
        d.remoteCSeq = Dialog.EMPTY_CSEQ;
        d.state = DialogState.INITIAL;
        return d;
    }

    /**
     * {@link #prepareUac(CharSequence, CharSequence, CharSequence, CharSequence, CharSequence, long)} with the
     * Request-URI given as bytes {@code [uriStart, uriEnd)} of {@code requestUri} (a received request's, which a copy
     * keeps), copied as they are: no text is made of them.
     */
    public Dialog prepareUac(final CharSequence callId, final CharSequence localTag, final CharSequence localAddress,
        final CharSequence remoteAddress, final byte[] requestUri, final int uriStart, final int uriEnd,
        final long cseq)
    {
        final Dialog d = prepareUac(callId, localTag, localAddress, remoteAddress, "", cseq);
        if (null != d)
        {
            d.remoteTarget.set(requestUri, uriStart, uriEnd);
        }
        return d;
    }

    /**
     * A response to our dialog-creating request {@code method} / {@code cseq} that the caller decided belongs to
     * {@code d} (§12.1.2): a tagged 1xx to an INVITE or a 2xx. A record without that remote tag (initial, or early with
     * another fork's tag, which a 2xx replaces) takes the response's tag, its Contact as remote target (else the
     * target stays) and its Record-Route reversed as route set; the same tag again: a 2xx confirms the record and
     * recomputes the route set (§13.2.2.4), and any Contact refreshes the target (RFC 6141 §4).
     *
     * @param response borrowed.
     * @return {@link DialogFailure#NONE}, or why the response could not set the record (it is left as it was).
     */
    public DialogFailure onUacResponse(final Dialog d, final SipMethod method, final long cseq, final int status,
        final HeaderSource response)
    {
        final boolean success = status >= 200 && status < 300;
        if (status <= 100 || status >= 300 || (!success && method != SipMethod.INVITE))
        {
            return DialogFailure.RESPONSE_CANNOT_CREATE;
        }
        if (!tagOf(response, HeaderName.TO) && !success)
        {
            return DialogFailure.RESPONSE_CANNOT_CREATE;
        }
        final boolean sameTag = d.state != DialogState.INITIAL && d.remoteTag.contentEquals(scratch.bytes(), 0,
            scratch.length());
        if (sameTag)
        {
            if (success && d.state == DialogState.EARLY)
            {
                d.state = DialogState.CONFIRMED;
                if (hasValidRecordRoutes(response))
                {
                    setRouteSet(response, d, true);
                }
            }
            refreshTarget(d, response);
            return DialogFailure.NONE;
        }
        if (response.firstHeader(HeaderName.CONTACT) >= 0 && !validContact(response))
        {
            return DialogFailure.BAD_CONTACT;
        }
        if (!hasValidRecordRoutes(response))
        {
            return DialogFailure.BAD_RECORD_ROUTE;
        }
        d.remoteTag.set(scratch.bytes(), 0, scratch.length());
        refreshTarget(d, response);
        setRouteSet(response, d, true);
        if (d.localCSeq == Dialog.EMPTY_CSEQ || cseq > d.localCSeq)
        {
            d.localCSeq = cseq;
        }
        d.inviteCSeq = method == SipMethod.INVITE ? cseq : Dialog.EMPTY_CSEQ;
        d.creatingMethod = method;
        d.creatingCSeq = cseq;
        d.state = success ? DialogState.CONFIRMED : DialogState.EARLY;
        return DialogFailure.NONE;
    }

    /**
     * Our dialog-creating request got a non-2xx final response (§12.3: its early dialogs end). A prepared record is
     * initial again, kept for another attempt (JSR 289 §6.2.1): no remote tag, route set or creating request; the
     * ids, parties and target stay.
     */
    public void rejectUac(final Dialog d)
    {
        d.remoteTag.clear();
        d.clearRoutes();
        d.localContact.clear();
        d.inviteCSeq = Dialog.EMPTY_CSEQ;
        d.creatingMethod = null;
        d.creatingCSeq = Dialog.EMPTY_CSEQ;
        d.state = DialogState.INITIAL;
    }

    /**
     * The record of another dialog of our forked request (§12.1.2, §13.2.2.4): Call-ID, local tag, parties, target,
     * local CSeq as {@code from}'s; initial, for the fork's response to set ({@link #onUacResponse}).
     */
    public Dialog forkUac(final Dialog from)
    {
        final Dialog d = pool.acquire();
        copyParties(from, d);
        d.remoteTarget.set(from.remoteTarget.bytes(), 0, from.remoteTarget.length());
        d.uac = true;
        d.prepared = true;
        d.localCSeq = from.localCSeq;
        d.remoteCSeq = Dialog.EMPTY_CSEQ;
        d.state = DialogState.INITIAL;
        return d;
    }

    /**
     * The record of another dialog we answer for the same received request (a second 2xx with a tag of its own):
     * {@code from}'s ids, parties, remote tag, target, route set and remote CSeq; no local tag yet.
     */
    public Dialog forkUas(final Dialog from)
    {
        final Dialog d = pool.acquire();
        copyParties(from, d);
        d.localTag.clear();
        d.remoteTag.set(from.remoteTag.bytes(), 0, from.remoteTag.length());
        d.remoteTarget.set(from.remoteTarget.bytes(), 0, from.remoteTarget.length());
        d.routes.set(from.routes.bytes(), 0, from.routes.length());
        if (d.routeIndex.length < from.routeIndex.length)
        {
            d.routeIndex = new int[from.routeIndex.length];
        }
        System.arraycopy(from.routeIndex, 0, d.routeIndex, 0, from.routeCount * Dialog.ROUTE_STRIDE);
        d.routeCount = from.routeCount;
        d.firstHopLoose = from.firstHopLoose;
        d.uac = false;
        d.prepared = true;
        d.secure = from.secure;
        d.remoteCSeq = from.remoteCSeq;
        d.localCSeq = Dialog.EMPTY_CSEQ;
        d.creatingMethod = from.creatingMethod;
        d.creatingCSeq = from.creatingCSeq;
        d.state = DialogState.INITIAL;
        return d;
    }

    /**
     * A confirmed dialog as another node of a cluster left it, for the node that takes the call over: Call-ID, tags,
     * parties (From and To without tag), remote target, route set in the order its Route headers are written
     * (§12.2.1.1: the first hop's {@code lr} decides loose or strict routing), local and remote CSeq, and which side
     * created it. The dialog-creating request is taken to be an INVITE with the remote CSeq (UAS) or the local CSeq
     * (UAC): only the CSeqs in order matter from there on. In no table.
     *
     * @return the record, owned by the caller, or null with {@link #lastFailure()} {@link DialogFailure#BAD_ADDRESS}
     *         when a party has no URI, or {@link DialogFailure#BAD_RECORD_ROUTE} when a route is not a name-addr.
     */
    public Dialog restore(final boolean uac, final CharSequence callId, final CharSequence localTag,
        final CharSequence remoteTag, final CharSequence localAddress, final CharSequence remoteAddress,
        final CharSequence remoteTarget, final List<? extends CharSequence> routeSet, final long localCSeq,
        final long remoteCSeq)
    {
        lastFailure = DialogFailure.NONE;
        final Dialog d = pool.acquire();
        if (!setAddress(d.localAddress, d.localUri, localAddress) ||
            !setAddress(d.remoteAddress, d.remoteUri, remoteAddress))
        {
            lastFailure = DialogFailure.BAD_ADDRESS;
            pool.release(d);
            return null;
        }
        d.clearRoutes();
        for (int k = 0; k < routeSet.size(); k++)
        {
            scratch.set(routeSet.get(k));
            if (!address.wrap(scratch.bytes(), 0, scratch.length()) || !address.isNameAddr())
            {
                lastFailure = DialogFailure.BAD_RECORD_ROUTE;
                pool.release(d);
                return null;
            }
            d.addRoute(scratch.bytes(), 0, scratch.length(), address.uriStart(), address.uriEnd());
            if (k == 0)
            {
                d.firstHopLoose = address.uri().hasLr();
            }
        }
        d.callId.set(callId);
        d.localTag.set(localTag);
        if (null == remoteTag)
        {
            d.remoteTag.clear();
        }
        else
        {
            d.remoteTag.set(remoteTag);
        }
        d.remoteTarget.set(remoteTarget);
        d.uac = uac;
        d.prepared = true;
        d.secure = remoteTarget.length() > 5 && "sips:".contentEquals(remoteTarget.subSequence(0, 5));
        d.localCSeq = localCSeq;
        d.remoteCSeq = remoteCSeq;
        d.creatingMethod = SipMethod.INVITE;
        d.creatingCSeq = uac ? localCSeq : remoteCSeq;
        d.inviteCSeq = d.creatingCSeq;
        d.state = DialogState.CONFIRMED;
        return d;
    }

    /** Gives a record that is in no table back to the pool (takes ownership); every reference to it is stale. */
    public void release(final Dialog d)
    {
        if (!d.pooled)
        {
            d.state = DialogState.TERMINATED;
            pool.release(d);
        }
    }

    // =================================================================================================================
    // Copying from messages (shared with the layer)
    // =================================================================================================================

    private static void copyParties(final Dialog from, final Dialog to)
    {
        to.callId.set(from.callId.bytes(), 0, from.callId.length());
        to.localTag.set(from.localTag.bytes(), 0, from.localTag.length());
        to.localAddress.set(from.localAddress.bytes(), 0, from.localAddress.length());
        to.localUri.set(from.localUri.bytes(), 0, from.localUri.length());
        to.remoteAddress.set(from.remoteAddress.bytes(), 0, from.remoteAddress.length());
        to.remoteUri.set(from.remoteUri.bytes(), 0, from.remoteUri.length());
        to.localContact.set(from.localContact.bytes(), 0, from.localContact.length());
    }

    private boolean address(final HeaderSource m, final int i)
    {
        final int start = m.headerValueStart(i);
        return start >= 0 && address.wrap(m.buffer(), start, m.headerValueEnd(i));
    }

    /** The first value of header {@code name} into {@code into} (emptied when there is none). */
    private static void copyValue(final HeaderSource m, final HeaderName name, final ByteSlot into)
    {
        final int i = m.firstHeader(name);
        if (i < 0 || m.headerValueStart(i) < 0)
        {
            into.clear();
            return;
        }
        into.set(m.buffer(), m.headerValueStart(i), m.headerValueEnd(i));
    }

    /** The tag of a From or To into {@code into}, emptied when it has none (an RFC 2543 peer, §12.1.1). */
    private void copyTag(final HeaderSource m, final HeaderName name, final ByteSlot into)
    {
        final int i = m.firstHeader(name);
        if (i >= 0 && address(m, i) && address.hasTag())
        {
            into.set(m.buffer(), address.tagStart(), address.tagEnd());
        }
        else
        {
            into.clear();
        }
    }

    /** The tag of a From or To into the scratch slot; false (and empty) when it has none. */
    private boolean tagOf(final HeaderSource m, final HeaderName name)
    {
        copyTag(m, name, scratch);
        return !scratch.isEmpty();
    }

    private boolean validContact(final HeaderSource m)
    {
        final int i = m.firstHeader(HeaderName.CONTACT);
        return i >= 0 && address(m, i) && !address.isWildcard();
    }

    /**
     * Copies a From or To value as a name-addr without its parameters (the tag is written apart, §12.2.1.1) and its
     * URI. An addr-spec is put in angle brackets so that parameters can follow it.
     */
    boolean copyAddress(final HeaderSource m, final HeaderName name, final ByteSlot addr, final ByteSlot uriOut)
    {
        final int i = m.firstHeader(name);
        if (i < 0 || !address(m, i) || address.isWildcard())
        {
            return false;
        }
        final byte[] b = m.buffer();
        final int us = address.uriStart();
        final int ue = address.uriEnd();
        uriOut.set(b, us, ue);
        if (address.isNameAddr() && ue < b.length && b[ue] == '>')
        {
            addr.set(b, address.hasDisplayName() ? address.displayNameStart() : us - 1, ue + 1);
        }
        else
        {
            addr.clear();
            addr.append((byte)'<');
            addr.append(b, us, ue);
            addr.append((byte)'>');
        }
        return true;
    }

    /**
     * Sets an address given as text (name-addr or addr-spec, no tag) and its URI; an addr-spec is put in angle
     * brackets so that a tag can follow it. False when the text is no address or a wildcard.
     */
    boolean setAddress(final ByteSlot addr, final ByteSlot uriOut, final CharSequence text)
    {
        addr.set(text);
        if (!address.wrap(addr.bytes(), 0, addr.length()) || address.isWildcard())
        {
            return false;
        }
        if (!address.isNameAddr())
        {
            addr.clear();
            addr.append((byte)'<');
            addr.append(text);
            addr.append((byte)'>');
            if (!address.wrap(addr.bytes(), 0, addr.length()))
            {
                return false;
            }
        }
        uriOut.set(addr.bytes(), address.uriStart(), address.uriEnd());
        return true;
    }

    boolean hasValidRecordRoutes(final HeaderSource m)
    {
        for (int i = m.firstHeader(HeaderName.RECORD_ROUTE); i >= 0; i = m.nextHeader(HeaderName.RECORD_ROUTE, i))
        {
            if (!address(m, i) || !address.isNameAddr())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Route set := the message's Record-Route values, in order (UAS, §12.1.1) or reversed (UAC, §12.1.2), each kept
     * whole with its parameters. The first hop's {@code lr} decides loose or strict routing (§12.2.1.1).
     */
    boolean setRouteSet(final HeaderSource m, final Dialog d, final boolean reverse)
    {
        int n = 0;
        for (int i = m.firstHeader(HeaderName.RECORD_ROUTE); i >= 0; i = m.nextHeader(HeaderName.RECORD_ROUTE, i))
        {
            // rec-route = name-addr *( SEMI rr-param ) (§20.30)
            if (!address(m, i) || !address.isNameAddr())
            {
                return false;
            }
            if (n == entries.length)
            {
                entries = Arrays.copyOf(entries, n * 2);
            }
            entries[n++] = i;
        }
        d.clearRoutes();
        final byte[] b = m.buffer();
        for (int k = 0; k < n; k++)
        {
            final int i = entries[reverse ? n - 1 - k : k];
            address(m, i);
            d.addRoute(b, m.headerValueStart(i), m.headerValueEnd(i), address.uriStart(), address.uriEnd());
            if (k == 0)
            {
                d.firstHopLoose = address.uri().hasLr();
            }
        }
        return true;
    }

    /** Whether a request's Request-URI is a sips URI (§12.1.1, §12.1.2: a secure dialog over TLS). */
    boolean isSipsUri(final byte[] b, final int start, final int end)
    {
        return start >= 0 && uri.wrap(b, start, end) && uri.isSips();
    }
}
