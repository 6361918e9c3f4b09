package io.sipline.sip.dialog;

import java.util.Arrays;

import io.sipline.sip.message.SipMethod;

/**
 * The state of one dialog (RFC 3261 §12): a pooled record, taken from the shard's {@link DialogPool} when a 1xx or
 * 2xx with a To tag creates the dialog (or when a UAC prepares its request, {@link DialogLayer#prepareUac}) and
 * returned to it when the dialog terminates.
 * <pre>
 *   dialog id (§12)      Call-ID, local tag, remote tag                    bytes in reusable {@link ByteSlot}s
 *   local / remote URI   From / To addresses, name-addr without tag        written into To and From (§12.2.1.1)
 *   remote target        the peer's Contact URI; refreshed by a target-refresh request or its 2xx
 *   route set            Record-Route values: UAS in order (§12.1.1), UAC reversed (§12.1.2)
 *   local CSeq           UAC: the creating request's; UAS: empty (-1) until the first request we send
 *   remote CSeq          UAS: the creating request's; UAC: empty (-1) until the first request we receive
 *   secure               the creating request went over TLS with a sips Request-URI (§12.1.1, §12.1.2)
 * </pre>
 *
 * <p>Everything is kept as bytes: the record holds no {@code String} and allocates nothing once its arrays have
 * grown to the sizes a shard's calls need. The record changes only through the {@link DialogLayer}; the transaction
 * user reads it.
 *
 * <p>Not thread-safe; owned by one shard. A reference is valid until {@link DialogListener#onDialogTerminated}
 * returns for this dialog (for a record of a {@link DialogPool#unpooled()} pool: as long as it is held); code that
 * must detect reuse (a timer firing late) keeps {@link #handle()} beside the reference and compares.
 */
public final class Dialog
{
    /** The value of an empty sequence number (§12.1.1: the UAS's local CSeq; §12.1.2: the UAC's remote CSeq). */
    public static final long EMPTY_CSEQ = -1;

    /** Ints per route entry: value start, value end, URI start, URI end (indexes into {@link #routeBytes()}). */
    static final int ROUTE_STRIDE = 4;
    /** Route entries of a new record's index, and the most a recycled record keeps room for. */
    private static final int ROUTE_INDEX_INITIAL = 4 * ROUTE_STRIDE;
    private static final int ROUTE_INDEX_KEPT = 32 * ROUTE_STRIDE;

    // --- identity (§12) --------------------------------------------------------------------------------------------
    final ByteSlot callId = new ByteSlot(48);
    final ByteSlot localTag = new ByteSlot(24);
    final ByteSlot remoteTag = new ByteSlot(24);
    long idHash;
    long setHash;

    // --- addresses ---------------------------------------------------------------------------------------------------
    final ByteSlot localAddress = new ByteSlot(64);
    final ByteSlot localUri = new ByteSlot(48);
    final ByteSlot remoteAddress = new ByteSlot(64);
    final ByteSlot remoteUri = new ByteSlot(48);
    final ByteSlot remoteTarget = new ByteSlot(48);
    final ByteSlot localContact = new ByteSlot(64);

    // --- route set ---------------------------------------------------------------------------------------------------
    final ByteSlot routes = new ByteSlot(128);
    int[] routeIndex = new int[ROUTE_INDEX_INITIAL];
    int routeCount;
    boolean firstHopLoose;

    // --- state -------------------------------------------------------------------------------------------------------
    DialogState state = DialogState.TERMINATED;
    boolean uac;
    /** Made by {@link DialogLayer#prepareUac}: a rejected request leaves it initial for the next attempt. */
    boolean prepared;
    boolean secure;
    long localCSeq = EMPTY_CSEQ;
    long remoteCSeq = EMPTY_CSEQ;
    long inviteCSeq = EMPTY_CSEQ;
    SipMethod creatingMethod;
    long creatingCSeq = EMPTY_CSEQ;

    // --- bookkeeping -------------------------------------------------------------------------------------------------
    long handle;
    boolean pooled;
    boolean inTable;
    boolean inSet;
    Dialog nextInSet;

    Dialog()
    {
    }

    // =================================================================================================================
    // Identity
    // =================================================================================================================

    public ByteSlot callId()
    {
        return callId;
    }

    /** Our tag: the To tag when we were the UAS of the creating request, the From tag when we were its UAC. */
    public ByteSlot localTag()
    {
        return localTag;
    }

    /** The peer's tag; empty for an RFC 2543 peer that sent none (§12.1.1). */
    public ByteSlot remoteTag()
    {
        return remoteTag;
    }

    /**
     * Changes every time the record is taken from the pool: keep it beside a reference that may outlive the dialog
     * (a timer) and compare before use.
     */
    public long handle()
    {
        return handle;
    }

    public DialogState state()
    {
        return state;
    }

    /** True for a UAC's prepared record whose request no response has answered with a To tag yet. */
    public boolean isInitial()
    {
        return state == DialogState.INITIAL;
    }

    public boolean isEarly()
    {
        return state == DialogState.EARLY;
    }

    public boolean isConfirmed()
    {
        return state == DialogState.CONFIRMED;
    }

    /** True when this side was the UAC of the dialog-creating request (§12.1.2). */
    public boolean isUac()
    {
        return uac;
    }

    /** INVITE, SUBSCRIBE or REFER: the method of the request that created the dialog. */
    public SipMethod creatingMethod()
    {
        return creatingMethod;
    }

    /** The CSeq number of the request that created the dialog. */
    public long creatingCSeq()
    {
        return creatingCSeq;
    }

    // =================================================================================================================
    // Addresses and target
    // =================================================================================================================

    /** The local address as written in From of our requests: name-addr ({@code "Name" <uri>}), no tag. */
    public ByteSlot localAddress()
    {
        return localAddress;
    }

    /** The local URI (§12.1: the URI of the To of the creating request at the UAS, of its From at the UAC). */
    public ByteSlot localUri()
    {
        return localUri;
    }

    /** The remote address as written in To of our requests: name-addr, no tag. */
    public ByteSlot remoteAddress()
    {
        return remoteAddress;
    }

    public ByteSlot remoteUri()
    {
        return remoteUri;
    }

    /** The remote target: the URI of the peer's Contact (§12.1.1, §12.1.2), refreshed by target refreshes. */
    public ByteSlot remoteTarget()
    {
        return remoteTarget;
    }

    /** The Contact value written into our target-refresh requests (§12.2.1.1); empty when none was given. */
    public ByteSlot localContact()
    {
        return localContact;
    }

    /** Sets the Contact value (a name-addr, e.g. {@code <sip:app@192.0.2.1:5060>}) our requests carry. */
    public Dialog localContact(final CharSequence value)
    {
        localContact.set(value);
        return this;
    }

    /** Sets the Contact value from bytes; the span is copied. */
    public Dialog localContact(final byte[] value, final int start, final int end)
    {
        localContact.set(value, start, end);
        return this;
    }

    /** True when the creating request was sent or received over TLS with a sips Request-URI (§12.1.1). */
    public boolean isSecure()
    {
        return secure;
    }

    // =================================================================================================================
    // Route set
    // =================================================================================================================

    /** Number of route set entries; 0 for none. */
    public int routeCount()
    {
        return routeCount;
    }

    /** The bytes every route entry's span indexes into. Borrowed. */
    public byte[] routeBytes()
    {
        return routes.bytes();
    }

    /** Start of entry {@code i}: the whole Record-Route value, {@code <sip:p1.example.com;lr>} plus any params. */
    public int routeStart(final int i)
    {
        return routeIndex[i * ROUTE_STRIDE];
    }

    public int routeEnd(final int i)
    {
        return routeIndex[i * ROUTE_STRIDE + 1];
    }

    /** Start of the URI inside entry {@code i}. */
    public int routeUriStart(final int i)
    {
        return routeIndex[i * ROUTE_STRIDE + 2];
    }

    public int routeUriEnd(final int i)
    {
        return routeIndex[i * ROUTE_STRIDE + 3];
    }

    /** Entry {@code i} as text. Allocates: for a user that keeps the route set as text, once. */
    public String route(final int i)
    {
        return routes.toString(routeStart(i), routeEnd(i));
    }

    /** True when the route set is not empty and its first URI carries {@code lr} (§19.1.1, §12.2.1.1). */
    public boolean isFirstHopLoose()
    {
        return routeCount > 0 && firstHopLoose;
    }

    /**
     * True when the first hop is a strict (RFC 2543) router: requests then carry the first route in the Request-URI
     * and the remote target as the last Route value (§12.2.1.1).
     */
    public boolean isStrictRouting()
    {
        return routeCount > 0 && !firstHopLoose;
    }

    // =================================================================================================================
    // Sequence numbers (§12.2.1.1, §12.2.2)
    // =================================================================================================================

    /** The local sequence number: the CSeq of the last request we sent in the dialog; {@link #EMPTY_CSEQ} if none. */
    public long localCSeq()
    {
        return localCSeq;
    }

    /** The remote sequence number: the CSeq of the last in-order request from the peer; {@link #EMPTY_CSEQ} if none. */
    public long remoteCSeq()
    {
        return remoteCSeq;
    }

    /** The CSeq number of the last INVITE sent in the dialog: an ACK for its 2xx and a CANCEL of it reuse it. */
    public long inviteCSeq()
    {
        return inviteCSeq;
    }

    /**
     * Advances the local sequence number for a new request and returns it (§12.2.1.1): one more than the last, or,
     * when empty (a UAS that has sent nothing yet), an initial value, 1 (§8.1.1.5 asks for any value below 2^31).
     */
    public long nextLocalCSeq()
    {
        localCSeq = localCSeq == EMPTY_CSEQ ? 1 : localCSeq + 1;
        return localCSeq;
    }

    // =================================================================================================================
    // Package-private: written by the layer
    // =================================================================================================================

    void clearRoutes()
    {
        routes.clear();
        routeCount = 0;
        firstHopLoose = false;
    }

    /** Appends a route entry: copies the value span and records where the URI lies inside it. */
    void addRoute(final byte[] src, final int start, final int end, final int uriStart, final int uriEnd)
    {
        final int base = routes.length();
        routes.append(src, start, end);
        final int at = routeCount * ROUTE_STRIDE;
        if (at + ROUTE_STRIDE > routeIndex.length)
        {
            routeIndex = Arrays.copyOf(routeIndex, routeIndex.length * 2);
        }
        routeIndex[at] = base;
        routeIndex[at + 1] = base + (end - start);
        routeIndex[at + 2] = base + (uriStart - start);
        routeIndex[at + 3] = base + (uriEnd - start);
        routeCount++;
    }

    /** Forgets everything but the arrays, for the pool (an outsized array is dropped, {@link ByteSlot#recycle()}). */
    void reset()
    {
        callId.recycle();
        localTag.recycle();
        remoteTag.recycle();
        idHash = 0;
        setHash = 0;
        localAddress.recycle();
        localUri.recycle();
        remoteAddress.recycle();
        remoteUri.recycle();
        remoteTarget.recycle();
        localContact.recycle();
        clearRoutes();
        routes.recycle();
        if (routeIndex.length > ROUTE_INDEX_KEPT)
        {
            routeIndex = new int[ROUTE_INDEX_INITIAL]; // rare: a route set of hundreds of entries is not kept
        }
        state = DialogState.TERMINATED;
        uac = false;
        prepared = false;
        secure = false;
        localCSeq = EMPTY_CSEQ;
        remoteCSeq = EMPTY_CSEQ;
        inviteCSeq = EMPTY_CSEQ;
        creatingMethod = null;
        creatingCSeq = EMPTY_CSEQ;
        inTable = false;
        inSet = false;
        nextInSet = null;
    }

    /** Debug text; allocates. */
    @Override
    public String toString()
    {
        return "Dialog[" + state + " " + callId + " local=" + localTag + " remote=" + remoteTag + " target=" +
            remoteTarget + " routes=" + routeCount + "]";
    }
}
