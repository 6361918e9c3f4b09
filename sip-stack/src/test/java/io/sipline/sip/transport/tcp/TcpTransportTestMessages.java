package io.sipline.sip.transport.tcp;

/** Test messages for the TCP tests. */
final class TcpTransportTestMessages
{
    private TcpTransportTestMessages()
    {
    }

    /** A well-formed OPTIONS with the given Call-ID, CSeq number and body. */
    static String options(final String callId, final int cseq, final String body)
    {
        return "OPTIONS sip:bob@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/TCP 127.0.0.1:5070;branch=z9hG4bK-" + Integer.toHexString(callId.hashCode()) + "-" + cseq
            + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@127.0.0.1>;tag=1\r\n"
            + "To: <sip:bob@127.0.0.1>\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: " + cseq + " OPTIONS\r\n"
            + "Content-Length: " + body.length() + "\r\n"
            + "\r\n"
            + body;
    }
}
