package io.sipline.bench.baseline.jainsip;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import javax.sip.ClientTransaction;
import javax.sip.Dialog;
import javax.sip.DialogState;
import javax.sip.DialogTerminatedEvent;
import javax.sip.IOExceptionEvent;
import javax.sip.ListeningPoint;
import javax.sip.RequestEvent;
import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.SipFactory;
import javax.sip.SipListener;
import javax.sip.SipProvider;
import javax.sip.SipStack;
import javax.sip.TimeoutEvent;
import javax.sip.Transaction;
import javax.sip.TransactionTerminatedEvent;
import javax.sip.address.Address;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ContactHeader;
import javax.sip.header.ContentTypeHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.HeaderFactory;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;

import gov.nist.javax.sip.stack.SIPServerTransaction;

/**
 * The baseline of the load harness: a back-to-back user agent on the JAIN-SIP RI ({@code javax.sip:jain-sip-ri}), the
 * stack under today's Mobicents/Restcomm deployments, doing the same two-dialog relay as Sipline's {@code b2bua}
 * example. Written the way a JAIN-SIP application is written (the RI's automatic dialog support, one server and one
 * client transaction per leg, the RI's default thread pool), so that the harness compares stacks, not a weakened
 * rival.
 *
 * <p>Per call: the caller's INVITE is answered on its server transaction and relayed as a new INVITE (new Call-ID,
 * From tag, Via and Contact of ours; Request-URI the target with the caller's user part) on a client transaction;
 * every provisional (but 100) and final response is relayed back with one To tag per call; the ACK for a 2xx is
 * created on the other dialog; a BYE from either side is answered and relayed on the other dialog; a CANCEL is
 * answered 200 (RFC 3261 §9.2) and cancels the callee leg, whose 487 is relayed; a callee that never answers gives the
 * caller 408 (Timer B). Non-2xx ACKs are the RI's business (§17.1.1.3).
 *
 * <p>Threading: the RI calls the listener from its own threads; every per-call object is reached only through the
 * transactions' and dialogs' application data, and the counters are atomic.
 */
public final class JainSipB2bua implements SipListener, AutoCloseable
{
    private static final String TRANSPORT = "udp";

    private final SipStack stack;
    private final SipProvider provider;
    private final ListeningPoint listeningPoint;
    private final AddressFactory addresses;
    private final HeaderFactory headers;
    private final MessageFactory messages;
    private final String targetHost;
    private final int targetPort;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final Set<Class<?>> reported = ConcurrentHashMap.newKeySet();

    /** The two legs of one call; reached from both transactions and both dialogs through their application data. */
    private static final class Call
    {
        final ServerTransaction caller;
        final String callerToTag;
        volatile ClientTransaction callee;
        volatile Dialog callerDialog;
        volatile Dialog calleeDialog;

        Call(final ServerTransaction caller, final String callerToTag)
        {
            this.caller = caller;
            this.callerToTag = callerToTag;
        }
    }

    /**
     * Starts the RI on {@code bind:port} (UDP) and relays every initial INVITE to {@code targetHost:targetPort}.
     *
     * @throws Exception whatever the RI throws while starting (a port in use, a bad address).
     */
    public JainSipB2bua(final String bind, final int port, final String targetHost, final int targetPort)
        throws Exception
    {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        final SipFactory factory = SipFactory.getInstance();
        factory.setPathName("gov.nist");
        final Properties properties = new Properties();
        properties.setProperty("javax.sip.STACK_NAME", "jainsip-b2bua-" + port);
        properties.setProperty("javax.sip.AUTOMATIC_DIALOG_SUPPORT", "on");
        // As Mobicents/Restcomm SIP Servlets configure the RI: a thread pool, a re-entrant listener, no message log.
        properties.setProperty("gov.nist.javax.sip.THREAD_POOL_SIZE", "64");
        properties.setProperty("gov.nist.javax.sip.REENTRANT_LISTENER", "true");
        properties.setProperty("gov.nist.javax.sip.TRACE_LEVEL", "0");
        properties.setProperty("gov.nist.javax.sip.LOG_MESSAGE_CONTENT", "false");
        properties.setProperty("gov.nist.javax.sip.RECEIVE_UDP_BUFFER_SIZE", "4194304");
        properties.setProperty("gov.nist.javax.sip.SEND_UDP_BUFFER_SIZE", "4194304");
        stack = factory.createSipStack(properties);
        addresses = factory.createAddressFactory();
        headers = factory.createHeaderFactory();
        messages = factory.createMessageFactory();
        listeningPoint = stack.createListeningPoint(bind, port, TRANSPORT);
        provider = stack.createSipProvider(listeningPoint);
        provider.addSipListener(this);
        stack.start();
    }

    /** The UDP port the RI listens on. */
    public int port()
    {
        return listeningPoint.getPort();
    }

    /** Initial INVITEs relayed so far. */
    public long calls()
    {
        return calls.get();
    }

    /** Exceptions the relay caught (each also printed once per kind on stderr). */
    public long errors()
    {
        return errors.get();
    }

    @Override
    public void processRequest(final RequestEvent event)
    {
        final Request request = event.getRequest();
        try
        {
            switch (request.getMethod())
            {
                case Request.INVITE -> onInvite(event, request);
                case Request.ACK -> onAck(event);
                case Request.BYE -> onBye(event, request);
                case Request.CANCEL -> onCancel(event, request);
                default -> answer(event, request, Response.NOT_IMPLEMENTED);
            }
        }
        catch (final Exception ex)
        {
            failed(ex);
        }
    }

    private void onInvite(final RequestEvent event, final Request request) throws Exception
    {
        final ServerTransaction caller = null == event.getServerTransaction() ?
            provider.getNewServerTransaction(request) : event.getServerTransaction();
        if (null != event.getDialog() && null != event.getDialog().getApplicationData())
        {
            // A re-INVITE: not part of the benchmark's call flow; refused rather than relayed half-way.
            caller.sendResponse(messages.createResponse(Response.NOT_ACCEPTABLE_HERE, request));
            return;
        }
        final Call call = new Call(caller, Long.toHexString(System.nanoTime() ^ calls.incrementAndGet() << 20));
        caller.setApplicationData(call);
        call.callerDialog = caller.getDialog();
        call.callerDialog.setApplicationData(call);

        final SipURI requestUri = addresses.createSipURI(
            ((SipURI)request.getRequestURI()).getUser(), targetHost);
        requestUri.setPort(targetPort);
        final Address from = addresses.createAddress(ourUri("b2bua"));
        final FromHeader fromHeader = headers.createFromHeader(from, Long.toHexString(System.nanoTime()));
        final ToHeader toHeader = headers.createToHeader(((ToHeader)request.getHeader(ToHeader.NAME)).getAddress(),
            null);
        final CallIdHeader callId = provider.getNewCallId();
        final CSeqHeader cseq = headers.createCSeqHeader(1L, Request.INVITE);
        final List<ViaHeader> via = new ArrayList<>(1);
        via.add(headers.createViaHeader(listeningPoint.getIPAddress(), listeningPoint.getPort(), TRANSPORT, null));
        final MaxForwardsHeader maxForwards = headers.createMaxForwardsHeader(
            Math.max(0, ((MaxForwardsHeader)request.getHeader(MaxForwardsHeader.NAME)).getMaxForwards() - 1));
        final Request invite = messages.createRequest(requestUri, Request.INVITE, callId, cseq, fromHeader, toHeader,
            via, maxForwards);
        invite.addHeader(contact());
        final byte[] body = request.getRawContent();
        if (null != body)
        {
            invite.setContent(body, (ContentTypeHeader)request.getHeader(ContentTypeHeader.NAME));
        }
        final ClientTransaction callee = provider.getNewClientTransaction(invite);
        callee.setApplicationData(call);
        call.callee = callee;
        call.calleeDialog = callee.getDialog();
        call.calleeDialog.setApplicationData(call);
        callee.sendRequest();
    }

    private void onAck(final RequestEvent event) throws Exception
    {
        final Dialog dialog = event.getDialog();
        if (null == dialog || !(dialog.getApplicationData() instanceof Call call))
        {
            return;
        }
        final Dialog callee = call.calleeDialog;
        final Request ack = callee.createAck(callee.getLocalSeqNumber());
        callee.sendAck(ack);
    }

    private void onBye(final RequestEvent event, final Request request) throws Exception
    {
        final ServerTransaction tx = null == event.getServerTransaction() ?
            provider.getNewServerTransaction(request) : event.getServerTransaction();
        tx.sendResponse(messages.createResponse(Response.OK, request));
        final Dialog dialog = event.getDialog();
        if (null == dialog || !(dialog.getApplicationData() instanceof Call call))
        {
            return;
        }
        final Dialog other = dialog == call.callerDialog ? call.calleeDialog : call.callerDialog;
        if (null == other || DialogState.TERMINATED == other.getState())
        {
            return;
        }
        final Request bye = other.createRequest(Request.BYE);
        other.sendRequest(provider.getNewClientTransaction(bye));
    }

    private void onCancel(final RequestEvent event, final Request request) throws Exception
    {
        final ServerTransaction tx = null == event.getServerTransaction() ?
            provider.getNewServerTransaction(request) : event.getServerTransaction();
        tx.sendResponse(messages.createResponse(Response.OK, request));
        final SIPServerTransaction invite = ((SIPServerTransaction)tx).getCanceledInviteTransaction();
        if (null != invite && invite.getApplicationData() instanceof Call call && null != call.callee)
        {
            provider.getNewClientTransaction(call.callee.createCancel()).sendRequest();
        }
    }

    @Override
    public void processResponse(final ResponseEvent event)
    {
        final Response response = event.getResponse();
        final ClientTransaction tx = event.getClientTransaction();
        final String method = ((CSeqHeader)response.getHeader(CSeqHeader.NAME)).getMethod();
        final int status = response.getStatusCode();
        try
        {
            if (null == tx)
            {
                // A retransmitted 2xx after the client transaction ended (RFC 3261 §13.2.2.4): ACK it again.
                if (Request.INVITE.equals(method) && status / 100 == 2 && null != event.getDialog())
                {
                    final Dialog dialog = event.getDialog();
                    dialog.sendAck(dialog.createAck(((CSeqHeader)response.getHeader(CSeqHeader.NAME)).getSeqNumber()));
                }
                return;
            }
            if (!Request.INVITE.equals(method) || Response.TRYING == status
                || !(tx.getApplicationData() instanceof Call call))
            {
                return; // 200 to BYE or CANCEL, or 100: ends here
            }
            relay(call, response, status);
        }
        catch (final Exception ex)
        {
            failed(ex);
        }
    }

    private void relay(final Call call, final Response response, final int status) throws Exception
    {
        final ServerTransaction caller = call.caller;
        final Response relayed = messages.createResponse(status, caller.getRequest());
        ((ToHeader)relayed.getHeader(ToHeader.NAME)).setTag(call.callerToTag);
        if (status < 300)
        {
            relayed.addHeader(contact());
        }
        final byte[] body = response.getRawContent();
        if (null != body)
        {
            relayed.setContent(body, (ContentTypeHeader)response.getHeader(ContentTypeHeader.NAME));
        }
        caller.sendResponse(relayed);
    }

    @Override
    public void processTimeout(final TimeoutEvent event)
    {
        final Transaction tx = event.isServerTransaction()
            ? event.getServerTransaction() : event.getClientTransaction();
        if (!event.isServerTransaction() && null != tx && Request.INVITE.equals(tx.getRequest().getMethod())
            && tx.getApplicationData() instanceof Call call)
        {
            try
            {
                // Timer B: the callee never answered; the caller gets 408 (RFC 3261 §17.1.1.2, §16.7 step 6 alike).
                call.caller.sendResponse(messages.createResponse(Response.REQUEST_TIMEOUT, call.caller.getRequest()));
            }
            catch (final Exception ex)
            {
                failed(ex);
            }
        }
    }

    @Override
    public void processIOException(final IOExceptionEvent event)
    {
        errors.incrementAndGet();
    }

    @Override
    public void processTransactionTerminated(final TransactionTerminatedEvent event)
    {
    }

    @Override
    public void processDialogTerminated(final DialogTerminatedEvent event)
    {
        event.getDialog().setApplicationData(null);
    }

    @Override
    public void close()
    {
        stack.stop();
    }

    private void answer(final RequestEvent event, final Request request, final int status) throws Exception
    {
        final ServerTransaction tx = null == event.getServerTransaction() ?
            provider.getNewServerTransaction(request) : event.getServerTransaction();
        tx.sendResponse(messages.createResponse(status, request));
    }

    private SipURI ourUri(final String user) throws Exception
    {
        final SipURI uri = addresses.createSipURI(user, listeningPoint.getIPAddress());
        uri.setPort(listeningPoint.getPort());
        return uri;
    }

    private ContactHeader contact() throws Exception
    {
        return headers.createContactHeader(addresses.createAddress(ourUri("b2bua")));
    }

    private void failed(final Exception ex)
    {
        errors.incrementAndGet();
        if (reported.add(ex.getClass()))
        {
            System.err.println("jainsip-b2bua: " + ex);
        }
    }

    /**
     * {@code java ... JainSipB2bua BIND PORT TARGET_HOST TARGET_PORT}: runs until the process is stopped; prints
     * {@code jainsip-b2bua: ready} once listening, and its counters when stopped; exits with 1 when it cannot start.
     */
    public static void main(final String[] args) throws Exception
    {
        if (4 != args.length)
        {
            System.err.println("usage: JainSipB2bua BIND PORT TARGET_HOST TARGET_PORT");
            System.exit(2);
        }
        final JainSipB2bua b2bua;
        try
        {
            b2bua = new JainSipB2bua(args[0], Integer.parseInt(args[1]), args[2], Integer.parseInt(args[3]));
        }
        catch (final Exception e)
        {
            // The RI has started non-daemon threads by the time its listening point fails (a port in use): without
            // an exit the process would stay up, never ready, until the harness's wait for it ends.
            System.err.println("jainsip-b2bua: cannot start on " + args[0] + ":" + args[1] + ": " + e.getMessage());
            e.printStackTrace();
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("jainsip-b2bua: stopped (calls=" + b2bua.calls() + ", errors=" + b2bua.errors() + ")");
            b2bua.close();
        }, "jainsip-b2bua-stop"));
        System.out.println("jainsip-b2bua: ready on " + args[0] + ":" + b2bua.port());
    }
}
