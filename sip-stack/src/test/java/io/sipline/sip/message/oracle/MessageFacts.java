package io.sipline.sip.message.oracle;

/**
 * The facts of one SIP message that a transaction and dialog layer act on, in a form that two parsers can be compared
 * by: {@link JainSipOracle#parse(byte[])} produces them from the JAIN-SIP RI, the Sipline differential test from the
 * flyweight, and the fixture manifests ({@code MANIFEST.tsv}) write them down by hand.
 *
 * <p>Absent values are {@code null} (strings) or {@link #ABSENT} (numbers). A manifest value that is present but does
 * not fit the Java type (the RFC 4475 overlarge CSeq numbers and status code) reads as {@link #OUT_OF_RANGE}.
 *
 * <p>Strings are the text as it appears in the message, after header folding is undone: the Request-URI is not
 * unescaped, tags and branches keep their case. The CSeq method and the request method are case-sensitive tokens.
 *
 * <p>Immutable; thread-safe.
 *
 * @param method        request method, {@code null} for a response.
 * @param requestUri    Request-URI text, {@code null} for a response.
 * @param status        status code of a response, {@link #ABSENT} for a request.
 * @param callId        Call-ID value.
 * @param cseqNumber    CSeq sequence number.
 * @param cseqMethod    CSeq method.
 * @param topViaBranch  {@code branch} parameter of the first Via value (first element of the first Via header).
 * @param fromTag       {@code tag} parameter of From.
 * @param toTag         {@code tag} parameter of To.
 * @param contentLength declared Content-Length (compact form {@code l} included), {@link #ABSENT} when there is none.
 */
public record MessageFacts(
    String method,
    String requestUri,
    int status,
    String callId,
    long cseqNumber,
    String cseqMethod,
    String topViaBranch,
    String fromTag,
    String toTag,
    int contentLength)
{
    /** Number that the message does not carry. */
    public static final int ABSENT = -1;

    /** Number that the message carries but that does not fit the field (manifests only). */
    public static final int OUT_OF_RANGE = -2;

    /**
     * @return true for a request, false for a response.
     */
    public boolean isRequest()
    {
        return null != method;
    }
}
