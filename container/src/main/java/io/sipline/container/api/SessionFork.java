package io.sipline.container.api;

import java.util.ArrayList;
import java.util.List;

import javax.servlet.sip.SipSession.State;


/**
 * A session's part in the dialogs of a forked initial request (JSR 289 §6.2.3.2, derived sessions; RFC 3261 §12.1.2,
 * §13.2.2.4: each To tag of a response to the request is a dialog of its own). The head is the session the shard's
 * {@link SessionTable} holds under (Call-ID, local tag); the UAC sessions derived from it share that entry and are
 * told apart by their remote tag ({@link #dialogFor}). A session that never forks carries no instance.
 * <p>
 * Not threadsafe; used on the sessions' shard, except {@link #relayed} (set by the application's thread while it
 * holds the application session).
 */
final class SessionFork
{
    /** On the head: the sessions derived from it, or null. */
    List<SipSessionImpl> derived;
    /** On a derived session: its head, or null once it became the head itself. */
    SipSessionImpl parent;
    /** On a derived session: its dialog's 2xx to the initial INVITE, or null. */
    SipServletResponseImpl ok;
    /** The ACK sent for {@link #ok} (resent when the 2xx is retransmitted), or null. */
    SipServletRequestImpl ack;
    /** The application relayed {@link #ok} upstream (createResponseToOriginalRequest): ACKed when the caller ACKs. */
    boolean relayed;
    /** The BYE the container sent to end this dialog itself (its response is not the application's), or null. */
    SipServletRequestImpl containerBye;
    /** A derived UAS session: the initial request is its head's, which lets go of it. */
    boolean sharesOriginal;

    /** The session of a response whose To tag is a new dialog of {@code from}'s request; see the caller. */
    static SipSessionImpl derive(final SipSessionImpl from, final SipServletResponseImpl response)
    {
        final SipSessionImpl head = from.head();
        final SipSessionImpl d = new SipSessionImpl(from.appSession(), true, from.dialog.forkUac(from.host()));
        d.fork = new SessionFork();
        d.fork.parent = head;
        d.copyFrom(from);
        d.markTransactionSeen();
        d.registered = true; // through head's entry
        if (null == head.fork)
        {
            head.fork = new SessionFork();
        }
        if (null == head.fork.derived)
        {
            head.fork.derived = new ArrayList<>(2);
        }
        head.fork.derived.add(d);
        d.fireCreated();
        d.dialog.adopt(d.host(), response);
        return d;
    }

    /** The UAS session of another dialog of {@code from}'s received request; see the caller. */
    static SipSessionImpl deriveUas(final SipSessionImpl from)
    {
        final SipSessionImpl d = new SipSessionImpl(from.appSession(), false, from.dialog.forkUas(from.host()));
        d.fork = new SessionFork();
        d.fork.sharesOriginal = true;
        d.copyFrom(from);
        d.fireCreated();
        return d;
    }

    /** The session among {@code head} and its derived ones whose remote tag is {@code tag}, or null. */
    static SipSessionImpl dialogFor(final SipSessionImpl head, final String tag)
    {
        if (null == tag || tag.equals(head.remoteTag()))
        {
            return head;
        }
        final List<SipSessionImpl> derived = null == head.fork ? null : head.fork.derived;
        if (null != derived)
        {
            for (int i = 0; i < derived.size(); i++)
            {
                if (tag.equals(derived.get(i).remoteTag()))
                {
                    return derived.get(i);
                }
            }
        }
        return null;
    }

    /** As {@link #dialogFor(SipSessionImpl, String)} over borrowed bytes; {@code head} when none matches. */
    static SipSessionImpl dialogFor(final SipSessionImpl head, final byte[] b, final int start, final int end)
    {
        final List<SipSessionImpl> derived = null == head.fork ? null : head.fork.derived;
        if (null == derived || start < 0 || head.dialog.remoteTagIs(b, start, end))
        {
            return head;
        }
        for (int i = 0; i < derived.size(); i++)
        {
            if (derived.get(i).dialog.remoteTagIs(b, start, end))
            {
                return derived.get(i);
            }
        }
        return head;
    }

    /**
     * The early dialogs of {@code head}'s derived sessions end (RFC 3261 §13.2.2.3, §13.2.2.4); with
     * {@code onlyTag}, only the one of that tag.
     *
     * @return whether a session ended.
     */
    static boolean endEarly(final SipSessionImpl head, final String onlyTag)
    {
        final List<SipSessionImpl> derived = null == head.fork ? null : head.fork.derived;
        if (null == derived)
        {
            return false;
        }
        boolean ended = false;
        for (int i = 0; i < derived.size(); i++)
        {
            final SipSessionImpl d = derived.get(i);
            if (State.EARLY == d.state() && (null == onlyTag || onlyTag.equals(d.remoteTag())))
            {
                d.state(State.TERMINATED);
                ended = true;
            }
        }
        return ended;
    }

    /**
     * An invalidated session leaves its siblings (on the shard): a derived one is dropped from its head's list; a
     * head with live derived sessions hands the shard table's entry, and the list, to the first of them, so that
     * the other dialogs' requests still find their sessions.
     */
    static void leave(final SipSessionImpl s)
    {
        final SessionFork fork = s.fork;
        final SipSessionImpl head = fork.parent;
        if (null != head)
        {
            if (null != head.fork.derived && head.fork.derived.remove(s) && head.fork.derived.isEmpty())
            {
                head.fork.derived = null; // the head alone again: it lets go of the INVITE as any session
            }
            fork.parent = null;
            return;
        }
        final List<SipSessionImpl> rest = fork.derived;
        fork.derived = null;
        final SessionTable table = s.host().sessions();
        if (rest.isEmpty())
        {
            table.removeDialog(s.localTagChars(), s); // no-op unless the entry is still ours
            return;
        }
        final SipSessionImpl heir = rest.remove(0);
        heir.fork.parent = null;
        heir.fork.derived = rest.isEmpty() ? null : rest;
        for (final SipSessionImpl d : rest)
        {
            d.fork.parent = heir;
        }
        table.putDialog(s.localTagChars(), heir);
    }
}
