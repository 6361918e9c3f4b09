package io.sipline.examples.registrar;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;

import javax.servlet.ServletException;
import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.URI;

import io.sipline.examples.forwarding.ForwardingServlet;

/**
 * The registrar example (RFC 3261 §10.3) with call delivery:
 * <ul>
 * <li>REGISTER binds the Contacts to the address-of-record of the To header in a {@link LocationStore}. Each
 * contact's expiry is its {@code expires} parameter, else the Expires header, else the context parameter
 * {@code default-expires} (3600 s); above {@code max-expires} (7200 s) it is lowered to it; a non-zero expiry below
 * {@code min-expires} (60 s) is refused with 423 and a Min-Expires header (§10.3 step 7). {@code Contact: *} with
 * {@code Expires: 0} removes every binding; {@code *} with another expiry or beside other contacts is a 400
 * (step 6). A refresh with the same Call-ID and a CSeq not above the stored one is refused with 500 and changes
 * nothing. The 200 OK lists every current binding with its remaining seconds in an {@code expires} parameter
 * (step 8); a REGISTER without Contact just asks for that list.</li>
 * <li>An initial INVITE whose Request-URI is a registered address-of-record is forwarded, back-to-back, to the
 * newest live contact ({@link ForwardingServlet}). An INVITE for an address-of-record with no live binding gets
 * 404 Not Found: this registrar keeps no list of its users, so it cannot tell a user it knows but who is not
 * registered (RFC 3261 §21.4.18 would answer that one 480 Temporarily Unavailable) from one it has never heard
 * of.</li>
 * </ul>
 * Threading: the store is shared by all calls and thread-safe; the container serializes the calls of one call.
 */
public final class RegistrarServlet extends ForwardingServlet
{
    private static final long serialVersionUID = 1L;

    private final transient LocationStore store = new LocationStore();
    private int minExpires;
    private int maxExpires;
    private int defaultExpires;

    @Override
    public void init() throws ServletException
    {
        minExpires = seconds("min-expires", 60);
        maxExpires = seconds("max-expires", 7200);
        defaultExpires = Math.min(maxExpires, seconds("default-expires", 3600));
        if (minExpires > maxExpires)
        {
            throw new ServletException("min-expires " + minExpires + " is above max-expires " + maxExpires);
        }
        log("expires " + minExpires + "-" + maxExpires + " s, default " + defaultExpires + " s");
    }

    /** The location store, for tests and other servlets of the application. */
    public LocationStore store()
    {
        return store;
    }

    @Override
    protected void doRegister(final SipServletRequest request) throws ServletException, IOException
    {
        final String aor = LocationStore.addressOfRecord(request.getTo().getURI());
        if (null == aor)
        {
            request.createResponse(SipServletResponse.SC_BAD_REQUEST, "To Is Not A SIP Address-Of-Record").send();
            return;
        }
        final long now = System.currentTimeMillis();
        final int headerExpires = request.getExpires();
        final List<Address> contacts = new ArrayList<>();
        try
        {
            final ListIterator<Address> it = request.getAddressHeaders("Contact");
            while (it.hasNext())
            {
                contacts.add(it.next());
            }
        }
        catch (final ServletParseException e)
        {
            request.createResponse(SipServletResponse.SC_BAD_REQUEST, "Bad Contact").send();
            return;
        }
        final List<LocationStore.Update> updates = new ArrayList<>();
        for (final Address contact : contacts)
        {
            if (contact.isWildcard())
            {
                if (contacts.size() != 1 || 0 != headerExpires)
                {
                    request.createResponse(SipServletResponse.SC_BAD_REQUEST,
                        "Contact * Needs Expires 0 And No Other Contact").send();
                    return;
                }
                for (final LocationStore.Binding b : store.lookup(aor, now))
                {
                    updates.add(new LocationStore.Update(b.contact(), 0));
                }
                break;
            }
            final int asked = contact.getExpires() >= 0 ? contact.getExpires() :
                headerExpires >= 0 ? headerExpires : defaultExpires;
            if (asked > 0 && asked < minExpires)
            {
                final SipServletResponse tooBrief = request.createResponse(SipServletResponse.SC_INTERVAL_TOO_BRIEF);
                tooBrief.setHeader("Min-Expires", Integer.toString(minExpires));
                tooBrief.send();
                return;
            }
            updates.add(new LocationStore.Update(contact, Math.min(asked, maxExpires)));
        }
        final List<LocationStore.Binding> bindings;
        try
        {
            bindings = updates.isEmpty() ? store.lookup(aor, now) :
                store.update(aor, updates, request.getCallId(), cseqNumber(request), now);
        }
        catch (final LocationStore.OutOfOrderException e)
        {
            request.createResponse(SipServletResponse.SC_SERVER_INTERNAL_ERROR, "Out Of Order Refresh").send();
            return;
        }
        final SipServletResponse ok = request.createResponse(SipServletResponse.SC_OK);
        for (final LocationStore.Binding b : bindings)
        {
            final Address contact = (Address) b.contact().clone();
            contact.setExpires(b.remainingSeconds(now));
            ok.addAddressHeader("Contact", contact, false);
        }
        ok.send();
        log("REGISTER " + aor + ": " + bindings.size() + (1 == bindings.size() ? " binding" : " bindings"));
    }

    @Override
    protected URI targetOf(final SipServletRequest invite) throws IOException
    {
        final String aor = LocationStore.addressOfRecord(invite.getRequestURI());
        final List<LocationStore.Binding> live = null == aor ? List.of() :
            store.lookup(aor, System.currentTimeMillis());
        if (live.isEmpty())
        {
            invite.createResponse(SipServletResponse.SC_NOT_FOUND).send();
            return null;
        }
        return live.getFirst().contact().getURI().clone();
    }

    private int seconds(final String name, final int otherwise) throws ServletException
    {
        final String value = getServletContext().getInitParameter(name);
        if (null == value || value.isBlank())
        {
            return otherwise;
        }
        try
        {
            final int n = Integer.parseInt(value.strip());
            if (n < 1)
            {
                throw new NumberFormatException();
            }
            return n;
        }
        catch (final NumberFormatException e)
        {
            throw new ServletException("the context parameter '" + name + "' is not a positive number of seconds: "
                + value);
        }
    }

    private static long cseqNumber(final SipServletRequest request)
    {
        final String cseq = request.getHeader("CSeq").strip();
        final int space = cseq.indexOf(' ');
        return Long.parseLong(space < 0 ? cseq : cseq.substring(0, space));
    }
}
