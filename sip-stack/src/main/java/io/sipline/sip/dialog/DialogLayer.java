package io.sipline.sip.dialog;

import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;

/**
 * RFC 3261 §12 on one shard, for a transaction user that lets the stack index its dialogs: creates them from requests
 * and responses, finds them in the {@link DialogTable} by (Call-ID, local tag, remote tag), keeps their state as
 * messages pass ({@link DialogRecords} holds the rules), ends them, and hands terminated records back to the
 * {@link DialogPool}. It sends nothing: it answers with values ({@link InDialogResult}, the dialog, null) and tells the
 * {@link DialogListener} when a dialog ends.
 * <p>
 * UAS: {@link #createUas} (§12.1.1), {@link #onUasResponse} (2xx confirms, non-2xx final ends, 2xx to BYE ends,
 * §15.1.2), {@link #onRequest} (§12.2.2: OK, NO_DIALOG for 481, OUT_OF_ORDER for 500). UAC: {@link #onUacResponse}
 * (a tagged 1xx or 2xx creates a dialog, one per To tag of a forked request, §12.1.2; a 2xx confirms and recomputes
 * the route set, §13.2.2.4; a non-2xx final ends the early ones, §12.3; 481/408 and a final response to BYE end it,
 * §12.2.1.2, §15.1.1). The early forks left end when the request's client transaction does
 * ({@link #onClientTransactionEnded}, 64*T1 after the first 2xx, RFC 6026, or Timer B). A UAC whose object must hold
 * the record before any response prepares it ({@link #prepareUac}); the record is the request's first dialog.
 * <p>
 * Messages are borrowed for the duration of each call. The per-message calls on an existing dialog allocate
 * nothing; creating one allocates only when the pool misses or a record's arrays must grow.
 * <p>
 * Not thread-safe; owned by one shard, like its pool and table.
 */
public final class DialogLayer
{
    private final DialogPool pool;
    private final DialogTable table;
    private final DialogListener listener;
    private final DialogRecords records;
    private final ByteSlot tagScratch = new ByteSlot(32);
    private DialogFailure lastFailure = DialogFailure.NONE;
    private Dialog matched;

    /**
     * @param listener told of every termination; {@link DialogListener#NONE} for none.
     */
    public DialogLayer(final DialogPool pool, final DialogTable table, final DialogListener listener)
    {
        this.pool = pool;
        this.records = new DialogRecords(pool);
        this.table = table;
        this.listener = listener;
    }

    public DialogTable table()
    {
        return table;
    }

    public DialogPool pool()
    {
        return pool;
    }

    /** Why the last create call returned null; {@link DialogFailure#NONE} after a success. */
    public DialogFailure lastFailure()
    {
        return lastFailure;
    }

    /** The dialog the last {@link #onRequest} matched, or null. */
    public Dialog matched()
    {
        return matched;
    }

    /** INVITE, SUBSCRIBE and REFER create dialogs (§12.1; RFC 6665 §4.1.2; RFC 3515 §2.4.4 via RFC 6665). */
    public static boolean isDialogCreating(final SipMethod method)
    {
        return method == SipMethod.INVITE || method == SipMethod.SUBSCRIBE || method == SipMethod.REFER;
    }

    /**
     * Target-refresh methods: INVITE (§12.2), UPDATE (RFC 3311 §5.1), SUBSCRIBE and NOTIFY (RFC 6665 §4.1.2), and
     * REFER, whose implicit subscription (RFC 3515, RFC 7647) is refreshed like SUBSCRIBE's.
     */
    public static boolean isTargetRefresh(final SipMethod method)
    {
        return method == SipMethod.INVITE || method == SipMethod.UPDATE || method == SipMethod.SUBSCRIBE ||
            method == SipMethod.NOTIFY || method == SipMethod.REFER;
    }

    // =================================================================================================================
    // UAS (§12.1.1)
    // =================================================================================================================

    /** {@link #createUas(SipMessage, byte[], int, int, int, boolean)} with the tag as text (copied, no allocation). */
    public Dialog createUas(final SipMessage request, final CharSequence localTag, final int status,
        final boolean overTls)
    {
        tagScratch.set(localTag);
        return createUas(request, tagScratch.bytes(), 0, tagScratch.length(), status, overTls);
    }

    /**
     * Creates the dialog a UAS establishes by sending a 1xx (INVITE only) or 2xx with a To tag to a dialog-creating
     * request (§12.1.1): remote target from the request's Contact, route set from its Record-Route in order, remote
     * CSeq from its CSeq, local CSeq empty, remote URI and tag from From, local URI from To and the given tag.
     * Called again for the same request and tag (the 200 after a 180), it returns the existing dialog, confirmed.
     *
     * @param request  the dialog-creating request, borrowed.
     * @param status   the response being sent: 101..199 makes an early dialog, 200..299 a confirmed one.
     * @param overTls  the request arrived over TLS (with a sips Request-URI the dialog is secure).
     * @return the dialog, or null with {@link #lastFailure()} saying why (the response should then be an error).
     */
    public Dialog createUas(
        final SipMessage request, final byte[] tag, final int tagStart, final int tagEnd, final int status,
        final boolean overTls)
    {
        lastFailure = DialogFailure.NONE;
        final SipMethod method = request.method();
        if (!isDialogCreating(method) || request.toTagStart() >= 0)
        {
            return fail(null, DialogFailure.NOT_DIALOG_CREATING);
        }
        if (status < 101 || status > 299 || (status < 200 && method != SipMethod.INVITE))
        {
            return fail(null, DialogFailure.RESPONSE_CANNOT_CREATE);
        }
        if (tagEnd <= tagStart)
        {
            return fail(null, DialogFailure.BAD_TAG);
        }
        final byte[] b = request.buffer();
        final Dialog existing = table.find(b, request.callIdStart(), request.callIdEnd(), tag, tagStart, tagEnd,
            b, Math.max(request.fromTagStart(), 0), Math.max(request.fromTagEnd(), 0));
        if (null != existing)
        {
            if (status >= 200)
            {
                existing.state = DialogState.CONFIRMED;
            }
            return existing;
        }

        final Dialog d = pool.acquire();
        d.callId.set(b, request.callIdStart(), request.callIdEnd());
        d.localTag.set(tag, tagStart, tagEnd);
        if (request.fromTagStart() >= 0)
        {
            d.remoteTag.set(b, request.fromTagStart(), request.fromTagEnd());
        }
        if (!records.copyAddress(request, HeaderName.TO, d.localAddress, d.localUri) ||
            !records.copyAddress(request, HeaderName.FROM, d.remoteAddress, d.remoteUri))
        {
            return fail(d, DialogFailure.BAD_ADDRESS);
        }
        if (!records.refreshTarget(d, request))
        {
            return fail(d, DialogFailure.BAD_CONTACT);
        }
        if (!records.setRouteSet(request, d, false))
        {
            return fail(d, DialogFailure.BAD_RECORD_ROUTE);
        }
        d.uac = false;
        d.secure = overTls && isSipsRequestUri(request);
        d.remoteCSeq = request.cseqNumber();
        d.localCSeq = Dialog.EMPTY_CSEQ;
        d.creatingMethod = method;
        d.creatingCSeq = request.cseqNumber();
        d.state = status >= 200 ? DialogState.CONFIRMED : DialogState.EARLY;
        table.add(d, false);
        return d;
    }

    /**
     * Tells the layer that the UAS sent a response to a request of dialog {@code d}: a 2xx confirms an early dialog;
     * a non-2xx final to the creating request ends it (§12.3); a 2xx to a BYE ends the dialog (§15.1.2); a 2xx to a
     * target-refresh request takes the request's Contact as the new remote target (§12.2.2, RFC 6141 §4).
     *
     * @param request borrowed.
     * @return the dialog, or null when it ended (the listener has been told and the record recycled).
     */
    public Dialog onUasResponse(final Dialog d, final SipMessage request, final int status)
    {
        if (null == d || d.state == DialogState.TERMINATED)
        {
            return null;
        }
        final boolean success = status >= 200 && status < 300;
        if (request.toTagStart() < 0)
        {
            if (status >= 300)
            {
                if (d.state == DialogState.EARLY)
                {
                    terminate(d, DialogEndReason.REJECTED);
                    return null;
                }
            }
            else if (success)
            {
                d.state = DialogState.CONFIRMED;
            }
            return d;
        }
        final SipMethod method = request.method();
        if (success)
        {
            if (method == SipMethod.BYE)
            {
                terminate(d, DialogEndReason.BYE);
                return null;
            }
            if (isTargetRefresh(method))
            {
                records.refreshTarget(d, request);
            }
        }
        return d;
    }

    /**
     * Matches a request that arrived inside a dialog (it has a To tag) and checks its CSeq (§12.2.2): lower than the
     * remote CSeq is {@link InDialogResult#OUT_OF_ORDER} (answer 500); otherwise the remote CSeq becomes the
     * request's. An ACK or CANCEL is matched but never ordered (they reuse the INVITE's number and get no response
     * of their own). The matched dialog is {@link #matched()}.
     *
     * @param request borrowed.
     */
    public InDialogResult onRequest(final SipMessage request)
    {
        final Dialog d = table.findForRequest(request);
        matched = d;
        if (null == d)
        {
            return InDialogResult.NO_DIALOG;
        }
        return records.acceptRequest(d, request.method(), request.cseqNumber());
    }

    // =================================================================================================================
    // UAC (§12.1.2)
    // =================================================================================================================

    /**
     * Creates the dialog a 1xx with a To tag (INVITE only: early) or a 2xx (confirmed) to our dialog-creating request
     * establishes (§12.1.2): remote target from the response's Contact (the Request-URI when a 1xx has none), route
     * set from its Record-Route reversed, local CSeq from the request, remote CSeq empty, local URI and tag from
     * From, remote URI from To and the remote tag from the response's To. Our Contact is taken from the request.
     * The dialog joins the set of the request (Call-ID, local tag) so that its forks can be ended together.
     *
     * @param request  the request as we sent it, parsed; borrowed.
     * @param response borrowed.
     * @param overTls  the request was sent over TLS.
     * @return the dialog (an existing one with this id is returned as is), or null with {@link #lastFailure()}.
     */
    public Dialog createUac(final SipMessage request, final SipMessage response, final boolean overTls)
    {
        lastFailure = DialogFailure.NONE;
        final SipMethod method = request.method();
        if (!isDialogCreating(method) || request.toTagStart() >= 0)
        {
            return fail(null, DialogFailure.NOT_DIALOG_CREATING);
        }
        final int status = response.statusCode();
        if (status < 101 || status > 299 ||
            (status < 200 && (method != SipMethod.INVITE || response.toTagStart() < 0)))
        {
            return fail(null, DialogFailure.RESPONSE_CANNOT_CREATE);
        }
        final Dialog existing = table.findForResponse(response);
        if (null != existing)
        {
            return existing;
        }

        final Dialog d = pool.acquire();
        final DialogFailure failure = establishUac(d, request, response, overTls, true);
        if (DialogFailure.NONE != failure)
        {
            return fail(d, failure);
        }
        table.add(d, true);
        return d;
    }

    /**
     * A UAC prepares the record of the dialog its dialog-creating request will make (§12.1.2) before it sends the
     * request, so that its own object holds the record from the start: Call-ID and local tag (the From tag), the
     * local and remote addresses (From and To without tag: a name-addr, or an addr-spec, which is put in angle
     * brackets), the Request-URI as remote target until a response gives a Contact (§12.1.2), and the request's
     * CSeq as local CSeq. The record is {@link DialogState#INITIAL} and in no table;
     * {@link #onUacResponse(Dialog, SipMessage, SipMessage, boolean)} makes it the request's first dialog, and
     * {@link #terminate} gives it back unused. Text is copied; nothing is allocated once the arrays have grown.
     *
     * @return the record, or null with {@link #lastFailure()} {@link DialogFailure#BAD_ADDRESS} when an address has
     *         no URI.
     */
    public Dialog prepareUac(final CharSequence callId, final CharSequence localTag, final CharSequence localAddress,
        final CharSequence remoteAddress, final CharSequence requestUri, final long cseq)
    {
        final Dialog d = records.prepareUac(callId, localTag, localAddress, remoteAddress, requestUri, cseq);
        lastFailure = records.lastFailure();
        return d;
    }

    /**
     * Prepares a record again for a new dialog-creating request of the same UAC (JSR 289 §6.2.1: a SipSession whose
     * initial request got a non-2xx final response is INITIAL again and may send another): same Call-ID, local tag
     * and addresses; {@code requestUri} is the remote target until a response gives a Contact, {@code cseq} the
     * local CSeq. Only a prepared record that is initial again may be prepared again.
     *
     * @throws IllegalStateException when {@code d} is not an initial prepared record.
     */
    public Dialog prepareUacAgain(final Dialog d, final CharSequence requestUri, final long cseq)
    {
        if (!d.prepared || d.state != DialogState.INITIAL)
        {
            throw new IllegalStateException("not an initial prepared UAC record: " + d.state);
        }
        d.remoteTarget.set(requestUri);
        d.localCSeq = cseq;
        return d;
    }

    /**
     * As {@link #onUacResponse(SipMessage, SipMessage, boolean)}, for a request whose record the UAC prepared
     * ({@link #prepareUac}): the first response that creates a dialog (a 1xx with a To tag to an INVITE, or a 2xx,
     * §12.1.2) fills {@code prepared} and tables it instead of taking a new record; a response with another To tag
     * then makes a dialog of its own, a fork (§13.2.2.4), as before. When the response cannot create the dialog (a
     * bad Contact or Record-Route, {@link #lastFailure()}), {@code prepared} stays initial.
     *
     * @param prepared the record {@link #prepareUac} made for {@code request}'s Call-ID and From tag, or null.
     * @param request  the request as sent, parsed; borrowed.
     * @param response borrowed.
     */
    public Dialog onUacResponse(final Dialog prepared, final SipMessage request, final SipMessage response,
        final boolean overTls)
    {
        if (null == prepared || prepared.state != DialogState.INITIAL || request.toTagStart() >= 0 ||
            !createsUacDialog(request.method(), response) || !preparedFor(prepared, request) ||
            null != table.findForResponse(response))
        {
            return onUacResponse(request, response, overTls);
        }
        lastFailure = DialogFailure.NONE;
        final DialogFailure failure = establishUac(prepared, request, response, overTls, false);
        if (DialogFailure.NONE != failure)
        {
            lastFailure = failure;
            prepared.remoteTag.clear();
            prepared.state = DialogState.INITIAL;
            return null;
        }
        table.add(prepared, true);
        return prepared;
    }

    /** A 1xx with a To tag to an INVITE, or a 2xx to a dialog-creating request, creates a dialog (§12.1.2). */
    private static boolean createsUacDialog(final SipMethod method, final SipMessage response)
    {
        final int status = response.statusCode();
        return isDialogCreating(method) && status >= 101 && status <= 299 &&
            (status >= 200 || (method == SipMethod.INVITE && response.toTagStart() >= 0));
    }

    /** The prepared record has the request's Call-ID and From tag. */
    private static boolean preparedFor(final Dialog prepared, final SipMessage request)
    {
        final byte[] q = request.buffer();
        return prepared.callId.contentEquals(q, request.callIdStart(), request.callIdEnd()) &&
            prepared.localTag.contentEquals(q, Math.max(request.fromTagStart(), 0), Math.max(request.fromTagEnd(), 0));
    }

    /**
     * Fills {@code d} from our request and the response that creates its dialog (§12.1.2); {@code copyParties}
     * also copies Call-ID, local tag and the addresses from the request (a prepared record has them).
     */
    private DialogFailure establishUac(final Dialog d, final SipMessage request, final SipMessage response,
        final boolean overTls, final boolean copyParties)
    {
        final byte[] q = request.buffer();
        final SipMethod method = request.method();
        if (copyParties)
        {
            d.callId.set(q, request.callIdStart(), request.callIdEnd());
            if (request.fromTagStart() >= 0)
            {
                d.localTag.set(q, request.fromTagStart(), request.fromTagEnd());
            }
            if (!records.copyAddress(request, HeaderName.FROM, d.localAddress, d.localUri) ||
                !records.copyAddress(request, HeaderName.TO, d.remoteAddress, d.remoteUri))
            {
                return DialogFailure.BAD_ADDRESS;
            }
        }
        if (response.toTagStart() >= 0)
        {
            d.remoteTag.set(response.buffer(), response.toTagStart(), response.toTagEnd());
        }
        if (response.firstHeader(HeaderName.CONTACT) >= 0)
        {
            if (!records.refreshTarget(d, response))
            {
                return DialogFailure.BAD_CONTACT;
            }
        }
        else
        {
            d.remoteTarget.set(q, request.requestUriStart(), request.requestUriEnd());
        }
        if (!records.setRouteSet(response, d, true))
        {
            return DialogFailure.BAD_RECORD_ROUTE;
        }
        final int contact = request.firstHeader(HeaderName.CONTACT);
        if (contact >= 0)
        {
            d.localContact.set(q, request.headerValueStart(contact), request.headerValueEnd(contact));
        }
        d.uac = true;
        d.secure = overTls && isSipsRequestUri(request);
        d.localCSeq = request.cseqNumber();
        d.remoteCSeq = Dialog.EMPTY_CSEQ;
        d.inviteCSeq = method == SipMethod.INVITE ? request.cseqNumber() : Dialog.EMPTY_CSEQ;
        d.creatingMethod = method;
        d.creatingCSeq = request.cseqNumber();
        d.state = response.statusCode() >= 200 ? DialogState.CONFIRMED : DialogState.EARLY;
        return DialogFailure.NONE;
    }

    /**
     * Processes a response to a request we sent (the client transaction passes it up):
     * <ul>
     *   <li>to a dialog-creating request: a 1xx with a new To tag (INVITE) or a 2xx creates a dialog (a fork when the
     *       request already has others, §12.1.2); a 2xx confirms the matching early dialog and recomputes its route
     *       set and remote target (§13.2.2.4); a later 1xx with a Contact in an early dialog updates its remote
     *       target (RFC 6141 §4: target refresh by a reliable provisional response); a non-2xx final ends every early
     *       dialog of the request (§12.3);</li>
     *   <li>inside a dialog: 481 and 408 end it (§12.2.1.2); a final response to BYE ends it (§15.1.1), except a
     *       401/407 challenge that the UAC answers with a new BYE (§22.2); a 2xx to a target refresh takes the
     *       response's Contact as remote target (§12.2.1.2).</li>
     * </ul>
     *
     * @param request  the request as sent, parsed; borrowed.
     * @param response borrowed.
     * @return the dialog the response belongs to after processing, or null (none, or it ended).
     */
    public Dialog onUacResponse(final SipMessage request, final SipMessage response, final boolean overTls)
    {
        final int status = response.statusCode();
        final boolean success = status >= 200 && status < 300;
        if (request.toTagStart() < 0)
        {
            if (status < 101)
            {
                return null;
            }
            if (status >= 300)
            {
                endEarlyDialogs(request, DialogEndReason.REJECTED);
                return null;
            }
            final SipMethod method = request.method();
            if (!isDialogCreating(method) ||
                (!success && (method != SipMethod.INVITE || response.toTagStart() < 0)))
            {
                return null;
            }
            final Dialog d = table.findForResponse(response);
            if (null == d)
            {
                return createUac(request, response, overTls);
            }
            if (d.state == DialogState.EARLY)
            {
                if (success)
                {
                    d.state = DialogState.CONFIRMED;
                    if (records.hasValidRecordRoutes(response))
                    {
                        records.setRouteSet(response, d, true);
                    }
                }
                records.refreshTarget(d, response);
            }
            return d;
        }

        final Dialog d = table.findForResponse(response);
        if (null == d)
        {
            return null;
        }
        if (status == 481)
        {
            terminate(d, DialogEndReason.NO_SUCH_DIALOG);
            return null;
        }
        if (status == 408)
        {
            terminate(d, DialogEndReason.REQUEST_TIMEOUT);
            return null;
        }
        final SipMethod method = response.cseqMethod();
        if (method == SipMethod.BYE && status >= 200 && status != 401 && status != 407)
        {
            terminate(d, DialogEndReason.BYE);
            return null;
        }
        if (success && isTargetRefresh(method))
        {
            records.refreshTarget(d, response);
        }
        return d;
    }

    /**
     * The client transaction of our dialog-creating request {@code request} is over (the transaction layer reported
     * it: 64*T1 after the first 2xx, §13.2.2.4 / RFC 6026, or Timer B/F). Every dialog the request created that is
     * still early ends with {@link DialogEndReason#TRANSACTION_ENDED}; confirmed ones stay.
     *
     * @param request the request as sent, parsed; borrowed.
     */
    public void onClientTransactionEnded(final SipMessage request)
    {
        if (request.toTagStart() < 0)
        {
            endEarlyDialogs(request, DialogEndReason.TRANSACTION_ENDED);
        }
    }

    // =================================================================================================================
    // Termination
    // =================================================================================================================

    /**
     * Ends a dialog: removes it from the table, tells the listener, returns the record to the pool. For the
     * transaction user's own reasons ({@link DialogEndReason#TIMEOUT}, {@link DialogEndReason#REQUEST_TIMEOUT} when
     * a request's client transaction timed out, {@link DialogEndReason#LOCAL}). Ending an ended dialog does nothing;
     * a prepared UAC record ({@link #prepareUac}) that no response made a dialog is given back the same way.
     */
    public void terminate(final Dialog d, final DialogEndReason reason)
    {
        if (d.pooled || d.state == DialogState.TERMINATED)
        {
            return;
        }
        d.state = DialogState.TERMINATED;
        table.remove(d);
        listener.onDialogTerminated(d, reason);
        pool.release(d);
    }

    /**
     * A prepared record's early dialog ended by a non-2xx final response (§12.3): the listener is told, and the record
     * leaves the table and is initial again (no remote tag, route set or creating request), kept by its transaction
     * user for another attempt ({@link #prepareUacAgain}) instead of going back to the pool.
     */
    private void unprepare(final Dialog d)
    {
        table.remove(d);
        listener.onDialogTerminated(d, DialogEndReason.REJECTED);
        records.rejectUac(d);
    }

    /** Ends the early dialogs created by {@code request} (same Call-ID, local tag and creating CSeq). */
    private void endEarlyDialogs(final SipMessage request, final DialogEndReason reason)
    {
        final long cseq = request.cseqNumber();
        Dialog d = table.firstInSet(request);
        while (null != d)
        {
            final Dialog next = d.nextInSet;
            if (d.state == DialogState.EARLY && d.creatingCSeq == cseq)
            {
                if (d.prepared && reason == DialogEndReason.REJECTED)
                {
                    unprepare(d);
                }
                else
                {
                    terminate(d, reason);
                }
            }
            d = next;
        }
    }

    // =================================================================================================================
    // Copying from messages
    // =================================================================================================================

    private Dialog fail(final Dialog acquired, final DialogFailure failure)
    {
        lastFailure = failure;
        if (null != acquired)
        {
            pool.release(acquired);
        }
        return null;
    }

    private boolean isSipsRequestUri(final SipMessage request)
    {
        return records.isSipsUri(request.buffer(), request.requestUriStart(), request.requestUriEnd());
    }
}
