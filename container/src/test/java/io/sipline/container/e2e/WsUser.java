package io.sipline.container.e2e;

import java.util.function.Predicate;

import io.sipline.container.dispatch.WsPeer;

/**
 * A SIP user agent over WebSocket (RFC 7118) on a {@link WsPeer}, for applications that JsSIP cannot drive: it
 * registers a {@code .invalid} Contact with {@code transport=ws} (§5), sends requests and answers the ones it
 * receives.
 * <p>
 * Threading: used by one test thread.
 */
final class WsUser implements AutoCloseable
{
    final String host;
    private final String name;
    private final WsPeer peer;
    private int cseq;

    WsUser(final String name, final int wsPort) throws Exception
    {
        this.name = name;
        this.host = name + "-ua.invalid";
        this.peer = new WsPeer(wsPort);
    }

    /** REGISTERs this user's Contact; returns the final response. */
    String register() throws Exception
    {
        send("REGISTER sip:127.0.0.1 SIP/2.0", null);
        return next(m -> m.startsWith("SIP/2.0 ") && !m.startsWith("SIP/2.0 1") && m.contains(" REGISTER\r\n"));
    }

    /** Sends a request with this start line (To is its Request-URI) and {@code body} as text/plain, or none. */
    void send(final String startLine, final String body) throws Exception
    {
        final String target = startLine.split(" ")[1];
        final String text = startLine + "\r\nVia: SIP/2.0/WS " + host + ";branch=z9hG4bK-" + name + "-" + ++cseq
            + "\r\nMax-Forwards: 70\r\nFrom: <sip:" + name + "@127.0.0.1>;tag=" + name + "\r\nTo: <"
            + ("REGISTER".equals(startLine.split(" ")[0]) ? "sip:" + name + "@127.0.0.1" : target)
            + ">\r\nCall-ID: " + name + "-" + cseq + "\r\nCSeq: " + cseq + " " + startLine.split(" ")[0]
            + "\r\nContact: <sip:" + name + "@" + host + ";transport=ws>\r\n"
            + (null == body ? "Content-Length: 0\r\n\r\n"
                : "Content-Type: text/plain\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
        peer.send(text);
    }

    /** Answers a received request with {@code status}, its Via, From, To (tagged), Call-ID and CSeq copied. */
    void answer(final String request, final int status) throws Exception
    {
        peer.send(ChatUser.answer(request, status, name));
    }

    /** The next message received that matches, waiting at most 10 s; the others are skipped. */
    String next(final Predicate<String> wanted) throws InterruptedException
    {
        return peer.await(wanted, "message for " + name);
    }

    @Override
    public void close()
    {
        peer.close();
    }
}
