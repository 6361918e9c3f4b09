package io.sipline.examples.registrar;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import javax.servlet.sip.Address;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.URI;

/**
 * The location service of the registrar (RFC 3261 §10.3): for each address-of-record, the contacts bound to it, each
 * with its expiry and the Call-ID and CSeq of the REGISTER that last refreshed it.
 * <p>
 * An address-of-record is the canonical form of a SIP URI (§10.3 step 5: parameters dropped): {@code user@host}, the
 * host in lower case, the port ignored (so that {@code sip:alice@127.0.0.1} registered and
 * {@code sip:alice@127.0.0.1:5060} called are the same user), scheme {@code sip} and {@code sips} alike.
 * <p>
 * Threading: application-wide and shared by every call; each address-of-record's bindings change atomically
 * ({@link ConcurrentMap#compute}) and are never changed in place, so readers see a whole list.
 */
public final class LocationStore
{
    /**
     * One binding.
     *
     * @param contact the Contact as registered (a copy; its {@code expires} parameter is not kept).
     * @param callId  the Call-ID of the REGISTER that last set it.
     * @param cseq    the CSeq number of that REGISTER.
     * @param expiresAtMillis when it expires, on the wall clock.
     */
    public record Binding(Address contact, String callId, long cseq, long expiresAtMillis)
    {
        /** Whole seconds left at {@code nowMillis}, rounded up, at least 0. */
        public int remainingSeconds(final long nowMillis)
        {
            return (int) Math.max(0, (expiresAtMillis - nowMillis + 999) / 1000);
        }
    }

    /** One change a REGISTER asks for: a contact and its expiry in seconds (0 removes it). */
    public record Update(Address contact, int expiresSeconds)
    {
    }

    /** Why a REGISTER is refused (RFC 3261 §10.3 step 7: an out-of-order refresh). */
    public static final class OutOfOrderException extends Exception
    {
        private static final long serialVersionUID = 1L;

        OutOfOrderException(final String message)
        {
            super(message);
        }
    }

    private final ConcurrentMap<String, List<Binding>> bindings = new ConcurrentHashMap<>();

    /**
     * @return the canonical address-of-record of a URI, or {@code null} for a URI that is not a SIP URI with a user.
     */
    public static String addressOfRecord(final URI uri)
    {
        if (!(uri instanceof SipURI sip) || null == sip.getUser() || sip.getUser().isEmpty())
        {
            return null;
        }
        return sip.getUser() + '@' + sip.getHost().toLowerCase(Locale.ROOT);
    }

    /**
     * The live bindings of an address-of-record, newest first.
     */
    public List<Binding> lookup(final String aor, final long nowMillis)
    {
        final List<Binding> all = bindings.getOrDefault(aor, List.of());
        final List<Binding> live = new ArrayList<>(all.size());
        for (final Binding b : all)
        {
            if (b.expiresAtMillis() > nowMillis)
            {
                live.add(b);
            }
        }
        return live;
    }

    /**
     * Applies the contacts of one REGISTER all at once (§10.3 steps 7 and 8): each contact is added, refreshed, or
     * (expiry 0) removed; expired bindings are dropped.
     *
     * @return the live bindings afterwards, newest first.
     * @throws OutOfOrderException when a contact is already bound by the same Call-ID with a CSeq not lower than
     *                             this one: nothing is changed.
     */
    public List<Binding> update(final String aor, final List<Update> updates, final String callId, final long cseq,
        final long nowMillis) throws OutOfOrderException
    {
        final OutOfOrderException[] refused = new OutOfOrderException[1];
        final List<Binding> after = bindings.compute(aor, (key, current) ->
        {
            final List<Binding> next = new ArrayList<>();
            for (final Binding b : null == current ? List.<Binding>of() : current)
            {
                if (b.expiresAtMillis() > nowMillis)
                {
                    next.add(b);
                }
            }
            for (final Update u : updates)
            {
                final int i = indexOf(next, u.contact().getURI());
                if (i >= 0 && next.get(i).callId().equals(callId) && next.get(i).cseq() >= cseq)
                {
                    refused[0] = new OutOfOrderException("CSeq " + cseq + " is not above " + next.get(i).cseq()
                        + " for " + u.contact().getURI() + " of the same Call-ID");
                    return current;
                }
            }
            for (final Update u : updates)
            {
                final int i = indexOf(next, u.contact().getURI());
                if (i >= 0)
                {
                    next.remove(i);
                }
                if (u.expiresSeconds() > 0)
                {
                    final Address contact = (Address) u.contact().clone();
                    contact.removeParameter("expires");
                    next.addFirst(new Binding(contact, callId, cseq, nowMillis + u.expiresSeconds() * 1000L));
                }
            }
            return next.isEmpty() ? null : List.copyOf(next);
        });
        if (null != refused[0])
        {
            throw refused[0];
        }
        return null == after ? List.of() : lookup(aor, nowMillis);
    }

    private static int indexOf(final List<Binding> list, final URI uri)
    {
        for (int i = 0; i < list.size(); i++)
        {
            if (list.get(i).contact().getURI().equals(uri))
            {
                return i;
            }
        }
        return -1;
    }
}
