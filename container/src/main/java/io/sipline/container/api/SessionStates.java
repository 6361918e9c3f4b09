package io.sipline.container.api;

import javax.servlet.sip.SipSession.State;


/**
 * The JSR 289 §6.2.1 states of a {@link SipSessionImpl} as its responses pass: INITIAL, EARLY on a tagged 1xx to
 * the dialog-creating request, CONFIRMED on its 2xx, TERMINATED on a final failure of it (a UAC returns to INITIAL
 * and may try again) or on the end of a BYE; and what each response means for the session's dialog: on the UAC side,
 * the dialog a tagged 1xx or 2xx creates (RFC 3261 §12.1.2), on both the target refresh of a 2xx (§12.2.1.2,
 * §12.2.2).
 * <p>
 * Stateless; called on the session's shard.
 */
final class SessionStates
{
    private SessionStates()
    {
    }

    /** A response the session's UAS sends. */
    static void onResponseSent(final SipSessionImpl s, final SipServletResponseImpl response)
    {
        final int status = response.getStatus();
        final SipServletRequestImpl request = response.requestImpl();
        if (status >= 200)
        {
            s.end(request);
        }
        final String method = request.getMethod();
        final State state = s.state();
        if (request == s.original() && SessionDialog.isDialogCreating(method))
        {
            s.dialog.answered(s.host(), status);
            if (status > 100 && status < 200 && State.INITIAL == state)
            {
                s.state(State.EARLY);
            }
            else if (status >= 200 && status < 300)
            {
                s.state(State.CONFIRMED);
            }
            else if (status >= 300 && State.CONFIRMED != state)
            {
                s.state(State.TERMINATED);
            }
        }
        else if ("BYE".equals(method) && status >= 200 && status < 300)
        {
            s.state(State.TERMINATED);
        }
        else if (status >= 200 && status < 300 && SessionDialog.isTargetRefresh(method))
        {
            // RFC 3261 §12.2.2, RFC 6141 §4: the remote target changes when the target refresh succeeds
            s.dialog.refreshTarget(s.host(), request.headers());
        }
        if (status >= 200)
        {
            SessionSnapshots.boundary(s); // a dialog boundary: the transaction completed
        }
    }

    /** A response to a request of the session's UAC arrived. */
    static void onResponseReceived(final SipSessionImpl s, final SipServletResponseImpl response)
    {
        final int status = response.getStatus();
        final SipServletRequestImpl request = response.requestImpl();
        if (status >= 200)
        {
            s.end(request);
        }
        final String method = request.getMethod();
        final State state = s.state();
        final SessionDialog dialog = s.dialog;
        if (request == s.original() && SessionDialog.isDialogCreating(method) && status > 100)
        {
            final boolean tagged = response.hasToTag();
            if (status < 300 && tagged && (dialog.noRemoteTag() || State.CONFIRMED != state))
            {
                dialog.adopt(s.host(), response);
            }
            if (s.isDerived() && status >= 200 && status < 300 && "INVITE".equals(method))
            {
                s.fork.ok = response;
            }
            if (status < 200 && tagged && State.INITIAL == state)
            {
                s.state(State.EARLY);
            }
            else if (status >= 200 && status < 300)
            {
                s.state(State.CONFIRMED);
            }
            else if (status >= 300 && State.CONFIRMED != state)
            {
                s.state(State.INITIAL); // the UAC may try again in the same session (§6.2.1)
                dialog.rejected(s.host());
            }
        }
        else if ("BYE".equals(method) && status >= 200)
        {
            s.state(State.TERMINATED);
        }
        else if (status >= 200 && status < 300 && SessionDialog.isTargetRefresh(method))
        {
            dialog.refreshTarget(s.host(), response.headers());
        }
        if (status >= 200)
        {
            SessionSnapshots.boundary(s); // a dialog boundary: the transaction completed
        }
    }
}
