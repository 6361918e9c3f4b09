package io.sipline.container.api;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;

import io.sipline.container.address.SipAddresses;
import io.sipline.container.replication.ApplicationSnapshot.DialogSnapshot;
import io.sipline.sip.dialog.ByteSlot;
import io.sipline.sip.dialog.Dialog;
import io.sipline.sip.dialog.DialogLayer;
import io.sipline.sip.dialog.DialogPool;
import io.sipline.sip.dialog.DialogRecords;
import io.sipline.sip.dialog.InDialogResult;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMethod;

/**
 * The RFC 3261 §12 dialog of one {@link SipSessionImpl}: a record of the stack's dialog layer ({@link Dialog}), which
 * alone keeps the state and applies the rules ({@link DialogRecords}: what the initial request, the responses and the
 * in-dialog requests write into it), and the text the container writes into the session's requests, made from the
 * record when first needed and kept until the record changes.
 * <pre>
 *   UAS  received(request)  ids, parties, target, route set (in order), remote CSeq from the request; local tag
 *        made for the first response
 *   UAC  outgoing(...)      Call-ID and local tag from the shard, parties as given, Request-URI as target; a tagged
 *        1xx or 2xx sets remote tag, target and route set (reversed); a non-2xx final: initial again (JSR 289 §6.2.1)
 * </pre>
 * The record comes from the shard's pool and goes back to it when the session is invalidated ({@link #release}); the
 * Call-ID, tags and parties stay readable as text after that: a UAS dialog reads those not read before from the
 * received request it was made from, which its session keeps anyway; any other keeps them as bytes in one array; both
 * are made into text when first read. A received request's Call-ID is such a text too: kept in the record only, and
 * compared there with the Call-ID of a message that names the dialog ({@link #callIdIs}).
 * <p>
 * Not threadsafe; used on the session's shard, or by the application while it holds the application session.
 */
final class SessionDialog
{
    /** The texts {@link #ended} keeps: remote tag, local party, remote party, Call-ID. */
    private static final int ENDED_TEXTS = 4;

    /** Null once released. */
    private Dialog record;
    /**
     * Null until read when the record holds it (a received request's), else the text the dialog was made with: a
     * String, or an {@link IdText} (a new leg's, made into a String only when read as one).
     */
    private CharSequence callId;
    /** A String, or an {@link IdText} (a tag this container made, written from its numbers); null until made. */
    private CharSequence localTag;
    private String remoteTag;
    /**
     * A String, or a view of the received request a B2BUA's copy made this dialog from ({@link TaggedParty} without
     * tag, or {@link AsciiSpan}: {@link HeaderText#partyWithoutTag}).
     */
    private CharSequence localParty;
    /** As {@link #localParty}. */
    private CharSequence remoteParty;
    /**
     * Once released: the remote tag, local party, remote party and Call-ID that were not read as text, as their bytes
     * after four 16-bit lengths (0 for one already read); null before, or when every one was read.
     */
    private byte[] ended;
    /**
     * Once released, a UAS dialog's: the header section of the received request the record was made from, whose
     * From, To and Call-ID give the texts not read before ({@link #requestText}) instead of {@link #ended}.
     */
    private MessageHeaders endedRequest;
    private String remoteTarget;
    private List<String> routeSet;
    /**
     * Whether the first hop is a strict (RFC 2543) router (§12.2.1.1): requests then carry its URI as Request-URI,
     * the rest of the route set, and the remote target as the last Route.
     */
    boolean strictRouting()
    {
        return null != record && record.isStrictRouting();
    }

    /** The URI of the route set's first entry; the route set must not be empty. */
    String firstRouteUri()
    {
        final Dialog d = live();
        return new String(d.routeBytes(), d.routeUriStart(0), d.routeUriEnd(0) - d.routeUriStart(0),
            StandardCharsets.US_ASCII);
    }

    /** The To of the UAS's responses to the initial request, local tag included; made once. */
    private TaggedParty taggedTo;
    /** The From of this side's requests in the dialog, local tag included (§12.2.1.1); made once per local tag. */
    private TaggedParty requestFrom;
    /**
     * The To of this side's requests in the dialog, remote tag included; made once per remote tag. While the remote tag
     * was not read as text, it holds a copy of the tag's bytes ({@link TaggedParty#withTagBytes}) that is also the
     * tag's text once the record is released.
     */
    private TaggedParty requestTo;

    private SessionDialog(final Dialog record, final CharSequence callId, final CharSequence localTag)
    {
        this.record = record;
        this.callId = callId;
        this.localTag = localTag;
    }

    /** The dialog of a received initial request (UAS, §12.1.1). */
    static SessionDialog received(final ContainerShard host, final SipServletRequestImpl request)
    {
        final MessageHeaders h = request.headers();
        final Dialog d = host.dialogRecords().prepareUas(h, SipMethod.lookup(request.getMethod()),
            request.cseqNumber(), false);
        // the Call-ID stays in the record until read: a B2BUA's caller leg seldom reads it as text
        return new SessionDialog(d, null, null);
    }

    /**
     * The dialog of a request the application originates (UAC, §12.1.2), before any response: the Call-ID given, or a
     * new one from the shard, and a new local tag.
     *
     * @param requestUri its Request-URI: a String is kept as the remote target's text; any other text only as bytes in
     *                   the record, made into text when first read.
     */
    static SessionDialog outgoing(final ContainerShard host, final CharSequence callId,
        final CharSequence fromWithoutTag, final CharSequence toWithoutTag, final CharSequence requestUri)
    {
        final CharSequence id = null == callId ? host.newCallIdText() : callId;
        final CharSequence tag = host.newTagText();
        final SessionDialog s = outgoing(host.dialogRecords().prepareUac(id, tag, fromWithoutTag, toWithoutTag,
            requestUri, Dialog.EMPTY_CSEQ), id, tag, fromWithoutTag, toWithoutTag);
        s.remoteTarget = requestUri instanceof String text ? text : null;
        return s;
    }

    /**
     * As {@link #outgoing(ContainerShard, CharSequence, CharSequence, CharSequence, CharSequence)} with the
     * Request-URI of {@code uriOf} (a request a B2BUA or the factory copies): its received bytes, copied into the
     * record as they are while they are unread and ASCII (no text made); else its text.
     */
    static SessionDialog outgoing(final ContainerShard host, final CharSequence callId,
        final CharSequence fromWithoutTag, final CharSequence toWithoutTag, final SipServletRequestImpl uriOf)
    {
        final int span = uriOf.requestUriAsciiSpan();
        if (span < 0)
        {
            return outgoing(host, callId, fromWithoutTag, toWithoutTag, uriOf.requestUriText());
        }
        final CharSequence id = null == callId ? host.newCallIdText() : callId;
        final CharSequence tag = host.newTagText();
        return outgoing(host.dialogRecords().prepareUac(id, tag, fromWithoutTag, toWithoutTag, uriOf.headers().bytes(),
            span >>> 16, span & 0xFFFF, Dialog.EMPTY_CSEQ), id, tag, fromWithoutTag, toWithoutTag);
    }

    private static SessionDialog outgoing(final Dialog d, final CharSequence callId, final CharSequence localTag,
        final CharSequence fromWithoutTag, final CharSequence toWithoutTag)
    {
        if (null == d)
        {
            throw new IllegalArgumentException("not a From and To address: " + fromWithoutTag + ", " + toWithoutTag);
        }
        final SessionDialog s = new SessionDialog(d, callId, localTag);
        s.localParty = fromWithoutTag;
        s.remoteParty = toWithoutTag;
        return s;
    }

    /**
     * The dialog of a session another node of the cluster wrote to the grid, as it was at its last boundary.
     *
     * @throws IllegalArgumentException when its parties or route set are not addresses.
     */
    static SessionDialog restored(final ContainerShard host, final DialogSnapshot s)
    {
        final Dialog d = host.dialogRecords().restore(s.uac(), s.callId(), s.localTag(), s.remoteTag(), s.localUri(),
            s.remoteUri(), s.remoteTarget(), s.routeSet(), s.localCSeq(), s.remoteCSeq());
        if (null == d)
        {
            throw new IllegalArgumentException("session " + s.id() + " of the grid: "
                + host.dialogRecords().lastFailure());
        }
        return new SessionDialog(d, s.callId(), s.localTag());
    }

    /** The UAC side of another dialog of the same forked request (§12.1.2); its response sets it ({@link #adopt}). */
    SessionDialog forkUac(final ContainerShard host)
    {
        final SessionDialog d = new SessionDialog(host.dialogRecords().forkUac(live()), callId, localTag);
        d.localParty = localParty;
        d.remoteParty = remoteParty;
        return d;
    }

    /** The UAS side of another dialog of the same received request: a local tag of its own, made for its response. */
    SessionDialog forkUas(final ContainerShard host)
    {
        final SessionDialog d = new SessionDialog(host.dialogRecords().forkUas(live()), callId, null);
        d.localParty = localParty;
        d.remoteParty = remoteParty;
        d.remoteTag = remoteTag;
        return d;
    }

    private Dialog live()
    {
        if (null == record)
        {
            throw new IllegalStateException("the session's dialog is over");
        }
        return record;
    }

    String callId()
    {
        final CharSequence id = callIdChars();
        if (null == id || id instanceof String)
        {
            return (String)id;
        }
        final String text = id.toString();
        callId = text; // an IdText keeps no String: kept here, so that the next read makes none
        return text;
    }

    /** The Call-ID as it is kept: a String, or an {@link IdText} not made into one; null when there is none. */
    CharSequence callIdChars()
    {
        if (null == callId && null != record && !record.callId().isEmpty())
        {
            final ByteSlot id = record.callId();
            callId = HeaderValues.unfold(id.bytes(), 0, id.length()); // as the request's header reads (§8.1.1.4)
        }
        else if (null == callId && null == record && hasEnded())
        {
            final String id = endedText(3);
            callId = id.isEmpty() ? null : id;
        }
        return callId;
    }

    /** Adds the Call-ID to {@code h} as it is kept (an {@link IdText} is written from its numbers). */
    void insertCallId(final MessageHeaders h)
    {
        final CharSequence id = callIdChars();
        if (id instanceof IdText made)
        {
            h.insert(h.size(), "Call-ID", made);
        }
        else
        {
            h.insert(h.size(), "Call-ID", (String)id);
        }
    }

    /** Whether the Call-ID is the one at {@code [start, end)} of {@code b}; no String is made. */
    boolean callIdIs(final byte[] b, final int start, final int end)
    {
        if (null == callId && null != record)
        {
            return start >= 0 && record.callId().contentEquals(b, start, end);
        }
        return sameChars(callIdChars(), b, start, end);
    }

    String localTag()
    {
        if (null == localTag || localTag instanceof String)
        {
            return (String)localTag;
        }
        final String text = localTag.toString();
        localTag = text; // as callId(); the table keys a tag the same from its text (SessionTable.key)
        return text;
    }

    /** The local tag as it is kept: a String, or an {@link IdText} not made into one; null until made. */
    CharSequence localTagChars()
    {
        return localTag;
    }

    /** The UAS's tag, made for its first response (§12.1.1): a String, or an {@link IdText}. */
    void localTag(final CharSequence tag)
    {
        localTag = tag;
        requestFrom = null;
        if (null != record)
        {
            DialogRecords.localTag(record, tag);
        }
    }

    /** The peer's tag; null while there is none (a UAC before a tagged response, an RFC 2543 peer). */
    String remoteTag()
    {
        if (null == remoteTag && null != record && !record.remoteTag().isEmpty())
        {
            remoteTag = record.remoteTag().toString();
        }
        else if (null == remoteTag && null == record && null != requestTo)
        {
            remoteTag = requestTo.tag();
        }
        else if (null == remoteTag && null == record && hasEnded())
        {
            final String tag = endedText(0);
            remoteTag = tag.isEmpty() ? null : tag;
        }
        return remoteTag;
    }

    /** Whether the peer's tag is the one at {@code [start, end)} of {@code b}; no String is made. */
    boolean remoteTagIs(final byte[] b, final int start, final int end)
    {
        if (null != record)
        {
            return start >= 0 && record.remoteTag().contentEquals(b, start, end);
        }
        return sameChars(remoteTag(), b, start, end);
    }

    /** Whether {@code text} (ASCII: a tag or a Call-ID) has exactly the bytes at {@code [start, end)} of {@code b}. */
    private static boolean sameChars(final CharSequence text, final byte[] b, final int start, final int end)
    {
        if (null == text || start < 0 || end - start != text.length())
        {
            return false;
        }
        for (int i = 0; i < text.length(); i++)
        {
            if (b[start + i] != text.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    /** Whether the dialog has no remote tag (a UAC before a tagged response, or an RFC 2543 peer). */
    boolean noRemoteTag()
    {
        return null == record ? null == remoteTag() : record.remoteTag().isEmpty();
    }

    /**
     * From or To as this side writes it, without tag (§12.2.1.1: the local and remote URIs of the dialog). A party
     * kept as a view of a request's bytes is made into text here, and the tagged From made over it is dropped, so
     * that the dialog no longer holds that request's bytes ({@link SipSessionImpl#settle} lets the request go).
     */
    String localParty()
    {
        final CharSequence p = localPartyChars();
        if (null == p || p instanceof String)
        {
            return (String)p;
        }
        final String text = p.toString();
        localParty = text;
        requestFrom = null;
        return text;
    }

    /** As {@link #localParty}, for the remote party and the tagged To. */
    String remoteParty()
    {
        final CharSequence p = remotePartyChars();
        if (null == p || p instanceof String)
        {
            return (String)p;
        }
        final String text = p.toString();
        remoteParty = text;
        requestTo = null;
        return text;
    }

    /** {@link #localParty} as it is kept: a String, or a view of a received request's bytes (no String made). */
    private CharSequence localPartyChars()
    {
        if (null == localParty && null != record)
        {
            localParty = record.localAddress().toString();
        }
        else if (null == localParty && null == record && hasEnded())
        {
            localParty = endedText(1);
        }
        return localParty;
    }

    private CharSequence remotePartyChars()
    {
        if (null == remoteParty && null != record)
        {
            remoteParty = record.remoteAddress().toString();
        }
        else if (null == remoteParty && null == record && hasEnded())
        {
            remoteParty = endedText(2);
        }
        return remoteParty;
    }

    /** The Request-URI of requests in the dialog (§12.2.1.1). */
    String remoteTarget()
    {
        if (null == remoteTarget && null != record)
        {
            remoteTarget = record.remoteTarget().toString();
        }
        return remoteTarget;
    }

    /** The route set, in the order Route headers are written (§12.2.1.1). */
    List<String> routeSet()
    {
        if (null == routeSet)
        {
            final int n = null == record ? 0 : record.routeCount();
            if (0 == n)
            {
                routeSet = List.of();
            }
            else
            {
                final List<String> routes = new ArrayList<>(n);
                for (int i = 0; i < n; i++)
                {
                    routes.add(record.route(i));
                }
                routeSet = routes;
            }
        }
        return routeSet;
    }

    /**
     * The To of the UAS's responses to its initial request (§8.2.6.2), made once from entry {@code requestTo} of the
     * request's headers; the local tag must be set.
     */
    TaggedParty taggedTo(final MessageHeaders requestHeaders, final int requestTo)
    {
        if (null == taggedTo)
        {
            // the party a view of the request's bytes while they are plain: no String of the request's To
            taggedTo = HeaderText.partyWithTag(requestHeaders, requestTo, localTag);
        }
        return taggedTo;
    }

    /**
     * The request the dialog was made from is let go ({@link SipSessionImpl#settle}): the parties are kept as text
     * and what was made over that request's bytes (the tagged To of its responses, the tagged From and To of a
     * B2BUA's copy) is dropped, made again from the text if ever needed, so that the dialog holds none of its bytes.
     */
    void settle()
    {
        localParty();
        remoteParty();
        taggedTo = null;
    }

    /** From of a request this side sends in the dialog: the local party with the local tag (§12.2.1.1). */
    TaggedParty requestFrom()
    {
        if (null == requestFrom)
        {
            requestFrom = TaggedParty.ofParty(localPartyChars(), localTag);
        }
        return requestFrom;
    }

    /**
     * To of a request this side sends in the dialog: the remote party with the remote tag; null while there is no
     * remote tag (the To is then {@link #remoteParty} as it is).
     */
    TaggedParty requestTo()
    {
        if (null != requestTo)
        {
            return requestTo; // made for the remote tag there is now: reset whenever it changes
        }
        if (null == remoteTag && null != record && !record.remoteTag().isEmpty())
        {
            // the tag as bytes: an in-dialog request (the ACK of a 2xx, a relayed BYE) needs no String of it
            final ByteSlot t = record.remoteTag();
            requestTo = TaggedParty.withTagBytes(remotePartyChars(), Arrays.copyOf(t.bytes(), t.length()));
            return requestTo;
        }
        final String tag = remoteTag();
        if (null != tag)
        {
            requestTo = TaggedParty.ofParty(remotePartyChars(), tag);
        }
        return requestTo;
    }

    /** The UAC's local CSeq starts at its initial request's (§12.1.2), once that request exists. */
    void localCseqBase(final SipServletRequestImpl original, final boolean uac)
    {
        if (null != record && Dialog.EMPTY_CSEQ == record.localCSeq() && null != original && uac)
        {
            DialogRecords.sent(record, original.cseqNumber());
        }
    }

    /** The last CSeq number sent in the dialog; -1 when none or once released. */
    long localCseq()
    {
        return null == record ? -1 : record.localCSeq();
    }

    /** The last CSeq number received in the dialog; -1 when none or once released. */
    long remoteCseq()
    {
        return null == record ? -1 : record.remoteCSeq();
    }

    /** The CSeq of a new request in the dialog: one more than the last (§12.2.1.1). */
    long nextCseq()
    {
        return live().nextLocalCSeq();
    }

    /** A request with {@code cseq} is sent in the dialog: the local CSeq is at least its number. */
    void sent(final long cseq)
    {
        if (null != record)
        {
            DialogRecords.sent(record, cseq);
        }
    }

    /**
     * Whether a request that found this dialog by its To tag belongs to it (§12.2.2): the dialog's remote tag is its
     * From tag (a dialog without a remote tag yet takes any), and its CSeq is in order (then it is the remote CSeq).
     *
     * @param anyTag the request may come from another remote tag than the dialog's (a forked subscription's NOTIFY).
     * @return 0 when it belongs, 481 for another remote tag, 500 for a CSeq out of order.
     */
    int match(final ContainerShard host, final byte[] b, final int fromTagStart, final int fromTagEnd,
        final SipMethod method, final long cseq, final boolean anyTag)
    {
        if (null == record)
        {
            return 481;
        }
        if (!anyTag && !record.remoteTag().isEmpty() && !remoteTagIs(b, fromTagStart, fromTagEnd))
        {
            return 481;
        }
        return InDialogResult.OUT_OF_ORDER == host.dialogRecords().acceptRequest(record, method, cseq) ? 500 : 0;
    }

    /** The UAS sent a response to the dialog-creating request: a tagged 1xx to an INVITE or a 2xx (§12.1.1). */
    void answered(final ContainerShard host, final int status)
    {
        if (null != record && status > 100)
        {
            host.dialogRecords().onUasResponse(record, status);
        }
    }

    /** Remote target := the URI of the message's Contact, when it has one (§12.2.1.2, §12.2.2). */
    void refreshTarget(final ContainerShard host, final MessageHeaders h)
    {
        if (null != record && host.dialogRecords().refreshTarget(record, h))
        {
            remoteTarget = null;
        }
    }

    /** A tagged 1xx or a 2xx to the dialog-creating request is this dialog's (§12.1.2, §13.2.2.4). */
    void adopt(final ContainerShard host, final SipServletResponseImpl response)
    {
        if (null == record)
        {
            return;
        }
        final SipServletRequestImpl request = response.requestImpl();
        host.dialogRecords().onUacResponse(record, SipMethod.lookup(request.getMethod()), request.cseqNumber(),
            response.getStatus(), response.headers());
        remoteTag = null;
        requestTo = null;
        remoteTarget = null;
        routeSet = null;
    }

    /** The dialog-creating request got a non-2xx final response: no remote tag, initial again (JSR 289 §6.2.1). */
    void rejected(final ContainerShard host)
    {
        if (null != record)
        {
            host.dialogRecords().rejectUac(record);
            remoteTag = null;
            requestTo = null;
            routeSet = null;
        }
    }

    /** {@link #release(ContainerShard, SipServletRequestImpl)} without a request to read the texts from. */
    void release(final ContainerShard host)
    {
        release(host, null);
    }

    /**
     * The session is invalidated: the text read after it (Call-ID, tags, parties) is kept, and the record goes back
     * to the shard's pool. Shard only.
     *
     * @param original the session's initial request, or null: when it is the received request this UAS dialog was
     *                 made from and its From, To and Call-ID are still its received bytes, the texts not read yet are
     *                 read from it later instead of copied now.
     */
    void release(final ContainerShard host, final SipServletRequestImpl original)
    {
        if (null == record)
        {
            return;
        }
        if (!record.isUac() && null != original && original.isIncoming() && receivedIds(original.headers()))
        {
            endedRequest = original.headers();
        }
        else
        {
            keepEnded(record);
        }
        final Dialog d = record;
        record = null;
        host.dialogRecords().release(d);
    }

    /** Whether the From, To and Call-ID of {@code h} are spans of its bytes, which no one writes (not edited). */
    private static boolean receivedIds(final MessageHeaders h)
    {
        final int from = h.find(HeaderName.FROM, 0);
        final int to = h.find(HeaderName.TO, 0);
        final int callId = h.find(HeaderName.CALL_ID, 0);
        return from >= 0 && to >= 0 && callId >= 0 && h.valueSpan(from) >= 0 && h.valueSpan(to) >= 0
            && h.valueSpan(callId) >= 0;
    }

    /** Whether the release copied the unread ids into {@link #ended} (tests). */
    boolean copiedAtRelease()
    {
        return null != ended;
    }

    /** Whether the released dialog has texts that were not read before its release. */
    private boolean hasEnded()
    {
        return null != ended || null != endedRequest;
    }

    /**
     * Copies what is still unread of the remote tag, local party, remote party and Call-ID out of the record into one
     * array ({@link #ended}); past 64 KiB (16-bit lengths) they are made into text at once.
     */
    private void keepEnded(final Dialog d)
    {
        // a To of requests made since the remote tag last changed holds its bytes already
        final ByteSlot tag = null == remoteTag && null == requestTo ? d.remoteTag() : null;
        final ByteSlot local = null == localParty ? d.localAddress() : null;
        final ByteSlot remote = null == remoteParty ? d.remoteAddress() : null;
        final ByteSlot id = null == callId ? d.callId() : null;
        if (null == tag && null == local && null == remote && null == id)
        {
            return;
        }
        final int n0 = length(tag);
        final int n1 = length(local);
        final int n2 = length(remote);
        final int n3 = length(id);
        if (n0 > 0xFFFF || n1 > 0xFFFF || n2 > 0xFFFF || n3 > 0xFFFF)
        {
            remoteTag();
            localParty();
            remoteParty();
            callId();
            return;
        }
        final byte[] b = new byte[2 * ENDED_TEXTS + n0 + n1 + n2 + n3];
        int at = keep(b, 0, tag, 2 * ENDED_TEXTS);
        at = keep(b, 1, local, at);
        at = keep(b, 2, remote, at);
        keep(b, 3, id, at);
        ended = b;
    }

    private static int length(final ByteSlot slot)
    {
        return null == slot ? 0 : slot.length();
    }

    /** Writes text {@code k}'s length and bytes (none for null) at {@code at} of {@code b}; returns where it ends. */
    private static int keep(final byte[] b, final int k, final ByteSlot slot, final int at)
    {
        final int n = length(slot);
        b[2 * k] = (byte)(n >>> 8);
        b[2 * k + 1] = (byte)n;
        if (n > 0)
        {
            System.arraycopy(slot.bytes(), 0, b, at, n);
        }
        return at + n;
    }

    /**
     * Text {@code k} (0 remote tag, 1 local party, 2 remote party: as UTF-8; 3 Call-ID: as its header reads) of
     * {@link #ended}.
     */
    private String endedText(final int k)
    {
        if (null != endedRequest)
        {
            return requestText(endedRequest, k);
        }
        if (null == ended)
        {
            return "";
        }
        final byte[] b = ended;
        int start = 2 * ENDED_TEXTS;
        for (int i = 0; i < k; i++)
        {
            start += (b[2 * i] & 0xFF) << 8 | b[2 * i + 1] & 0xFF;
        }
        final int length = (b[2 * k] & 0xFF) << 8 | b[2 * k + 1] & 0xFF;
        return 3 == k ? HeaderValues.unfold(b, start, start + length) : new String(b, start, length,
            StandardCharsets.UTF_8);
    }

    /**
     * Text {@code k} of {@link #endedText} as the record had it: the request's ids copied again by the same rules
     * ({@link DialogRecords#prepareUas}), into a record of its own that no pool keeps. Allocates; read once per text.
     */
    private static String requestText(final MessageHeaders h, final int k)
    {
        final Dialog d = new DialogRecords(DialogPool.unpooled()).prepareUas(h, SipMethod.INVITE, 0, false);
        final ByteSlot slot = switch (k)
        {
            case 0 -> d.remoteTag();
            case 1 -> d.localAddress();
            case 2 -> d.remoteAddress();
            default -> d.callId();
        };
        return 3 == k ? HeaderValues.unfold(slot.bytes(), 0, slot.length()) : slot.toString();
    }

    /** A party as an application reads it ({@code getLocalParty}, {@code getRemoteParty}): with its tag; or null. */
    static Address party(final String value, final String tag)
    {
        if (null == value)
        {
            return null;
        }
        try
        {
            return SipAddresses.parseAddress(null == tag ? value : HeaderText.withTag(value, tag));
        }
        catch (final ServletParseException e)
        {
            throw new IllegalStateException("party does not parse: " + value, e);
        }
    }

    static boolean isDialogCreating(final String method)
    {
        return DialogLayer.isDialogCreating(SipMethod.lookup(method));
    }

    /** Target-refresh methods (§12.2, {@link DialogLayer#isTargetRefresh}). */
    static boolean isTargetRefresh(final String method)
    {
        return DialogLayer.isTargetRefresh(SipMethod.lookup(method));
    }
}
