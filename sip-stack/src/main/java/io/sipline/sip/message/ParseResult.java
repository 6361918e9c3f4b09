package io.sipline.sip.message;

/**
 * What the parser made of a message: {@link #OK}, {@link #INCOMPLETE} (a stream needs more bytes), or the first thing
 * that is wrong with it. Each error carries the reason phrase a server puts in its {@code 400} (or {@code 505})
 * response, so the peer learns what to fix (RFC 3261 §8.2, §21.4.1). The offset of the fault is on the message
 * ({@link SipMessage#errorOffset()}).
 *
 * <p>Immutable; thread-safe.
 */
public enum ParseResult
{
    OK(200, "OK"),
    /** Stream transports only: the headers or the body are not all here yet; read more and parse again. */
    INCOMPLETE(0, "Incomplete"),
    EMPTY(400, "Empty Message"),
    BAD_START_LINE(400, "Bad Start Line"),
    BAD_METHOD(400, "Bad Method"),
    BAD_REQUEST_URI(400, "Bad Request-URI"),
    BAD_VERSION(400, "Bad SIP Version"),
    /** Well formed, but not SIP/2.0: answered with {@code 505} (RFC 3261 §8.2.2... and §21.5.7). */
    UNSUPPORTED_VERSION(505, "Version Not Supported"),
    BAD_STATUS_CODE(400, "Bad Status Code"),
    BAD_HEADER_NAME(400, "Bad Header Name"),
    HEADER_WITHOUT_COLON(400, "Header Line Without Colon"),
    CONTROL_CHARACTER(400, "Control Character In Header"),
    UNTERMINATED_QUOTE(400, "Unterminated Quoted String"),
    UNTERMINATED_ANGLE(400, "Unterminated Angle Bracket"),
    TOO_MANY_HEADERS(400, "Too Many Headers"),
    HEADERS_NOT_TERMINATED(400, "Header Section Not Terminated"),
    MISSING_VIA(400, "Missing Via"),
    BAD_VIA(400, "Bad Via"),
    MISSING_FROM(400, "Missing From"),
    BAD_FROM(400, "Bad From"),
    MISSING_TO(400, "Missing To"),
    BAD_TO(400, "Bad To"),
    /** A Contact in addr-spec form (no angle brackets) carrying URI headers or other reserved characters. */
    BAD_CONTACT(400, "Bad Contact"),
    MISSING_CALL_ID(400, "Missing Call-ID"),
    BAD_CALL_ID(400, "Bad Call-ID"),
    MISSING_CSEQ(400, "Missing CSeq"),
    BAD_CSEQ(400, "Bad CSeq"),
    CSEQ_METHOD_MISMATCH(400, "CSeq Method Does Not Match Request Method"),
    BAD_MAX_FORWARDS(400, "Bad Max-Forwards"),
    BAD_CONTENT_LENGTH(400, "Bad Content-Length"),
    /** Stream transports must carry Content-Length (RFC 3261 §18.3, §20.14). */
    MISSING_CONTENT_LENGTH(400, "Missing Content-Length"),
    /** The datagram holds fewer body bytes than Content-Length says (RFC 3261 §18.3: discard; answer 400). */
    BODY_TOO_SHORT(400, "Content-Length Larger Than Body"),
    BAD_EXPIRES(400, "Bad Expires"),
    DUPLICATE_HEADER(400, "Header Must Appear Once"),
    MESSAGE_TOO_LARGE(513, "Message Too Large");

    private final int statusCode;
    private final String reasonPhrase;

    ParseResult(final int statusCode, final String reasonPhrase)
    {
        this.statusCode = statusCode;
        this.reasonPhrase = reasonPhrase;
    }

    /** The status code a server answers a request with when it has this fault: 400, 505 or 513. */
    public int statusCode()
    {
        return statusCode;
    }

    /** The reason phrase for that response: says what is wrong. */
    public String reasonPhrase()
    {
        return reasonPhrase;
    }

    /** True for {@link #OK}. */
    public boolean isOk()
    {
        return this == OK;
    }

    /** True when the message is malformed (neither OK nor INCOMPLETE). */
    public boolean isError()
    {
        return this != OK && this != INCOMPLETE;
    }
}
