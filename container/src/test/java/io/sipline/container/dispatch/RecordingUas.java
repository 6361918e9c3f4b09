package io.sipline.container.dispatch;

import java.io.IOException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import javax.servlet.ServletException;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;

/**
 * A UAS for the dispatch tests: answers INVITE, BYE and OPTIONS 200, and records the method of each request it
 * gets.
 */
public final class RecordingUas extends SipServlet
{
    private static final long serialVersionUID = 1L;

    /** The methods of the requests the servlet got, in order. */
    final transient Queue<String> seen = new ConcurrentLinkedQueue<>();

    @Override
    protected void doInvite(final SipServletRequest req) throws ServletException, IOException
    {
        seen.add("INVITE");
        req.createResponse(200).send();
    }

    @Override
    protected void doAck(final SipServletRequest req)
    {
        seen.add("ACK");
    }

    @Override
    protected void doBye(final SipServletRequest req) throws ServletException, IOException
    {
        seen.add("BYE");
        req.createResponse(200).send();
    }

    @Override
    protected void doOptions(final SipServletRequest req) throws ServletException, IOException
    {
        seen.add("OPTIONS");
        req.createResponse(200).send();
    }
}
