package io.sipline.container.api;

/**
 * The reason phrases of RFC 3261 §21 (and the extension RFCs' codes JSR 289 names in {@code SipServletResponse}),
 * used when an application creates a response without one.
 * <p>
 * Threading: stateless.
 */
public final class ReasonPhrases
{
    private ReasonPhrases()
    {
    }

    /**
     * The phrase of a received status line: the standard phrase's own String when the bytes are exactly it (most
     * responses, so reading the phrase of a response to relay it costs no String), else a new String of the bytes
     * (UTF-8, RFC 3261 §25.1 Reason-Phrase).
     */
    static String received(final int status, final byte[] b, final int start, final int end)
    {
        final String standard = of(status);
        if (standard.length() == end - start)
        {
            int i = 0;
            while (i < standard.length() && standard.charAt(i) == b[start + i])
            {
                i++;
            }
            if (i == standard.length())
            {
                return standard;
            }
        }
        return new String(b, start, end - start, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The standard phrase of a status code, or a generic one for its class. */
    public static String of(final int status)
    {
        return switch (status)
        {
            case 100 -> "Trying";
            case 180 -> "Ringing";
            case 181 -> "Call Is Being Forwarded";
            case 182 -> "Queued";
            case 183 -> "Session Progress";
            case 199 -> "Early Dialog Terminated";
            case 200 -> "OK";
            case 202 -> "Accepted";
            case 204 -> "No Notification";
            case 300 -> "Multiple Choices";
            case 301 -> "Moved Permanently";
            case 302 -> "Moved Temporarily";
            case 305 -> "Use Proxy";
            case 380 -> "Alternative Service";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 402 -> "Payment Required";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 406 -> "Not Acceptable";
            case 407 -> "Proxy Authentication Required";
            case 408 -> "Request Timeout";
            case 410 -> "Gone";
            case 412 -> "Conditional Request Failed";
            case 413 -> "Request Entity Too Large";
            case 414 -> "Request-URI Too Long";
            case 415 -> "Unsupported Media Type";
            case 416 -> "Unsupported URI Scheme";
            case 420 -> "Bad Extension";
            case 421 -> "Extension Required";
            case 423 -> "Interval Too Brief";
            case 480 -> "Temporarily Unavailable";
            case 481 -> "Call/Transaction Does Not Exist";
            case 482 -> "Loop Detected";
            case 483 -> "Too Many Hops";
            case 484 -> "Address Incomplete";
            case 485 -> "Ambiguous";
            case 486 -> "Busy Here";
            case 487 -> "Request Terminated";
            case 488 -> "Not Acceptable Here";
            case 489 -> "Bad Event";
            case 491 -> "Request Pending";
            case 493 -> "Undecipherable";
            case 500 -> "Server Internal Error";
            case 501 -> "Not Implemented";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Server Time-out";
            case 505 -> "Version Not Supported";
            case 513 -> "Message Too Large";
            case 600 -> "Busy Everywhere";
            case 603 -> "Decline";
            case 604 -> "Does Not Exist Anywhere";
            case 606 -> "Not Acceptable";
            default -> status < 200 ? "Session Progress" : status < 300 ? "OK" : status < 400 ? "Redirection"
                : status < 500 ? "Client Error" : status < 600 ? "Server Error" : "Global Failure";
        };
    }
}
