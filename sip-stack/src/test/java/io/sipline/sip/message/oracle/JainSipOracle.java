package io.sipline.sip.message.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import gov.nist.javax.sip.header.CSeq;
import gov.nist.javax.sip.header.CallID;
import gov.nist.javax.sip.header.ContentLength;
import gov.nist.javax.sip.header.From;
import gov.nist.javax.sip.header.RequestLine;
import gov.nist.javax.sip.header.StatusLine;
import gov.nist.javax.sip.header.To;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import gov.nist.javax.sip.parser.StringMsgParser;
import javax.sip.address.URI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ContentLengthHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.ToHeader;

/**
 * Reference oracle for the Sipline parser: the JAIN-SIP RI ({@code javax.sip:jain-sip-ri:1.3.0-91}) parses the same
 * bytes and reports the same {@link MessageFacts}. Test scope only; the RI never reaches the runtime class path.
 *
 * <p>The RI is driven the way its own UDP message channel drives it: {@link StringMsgParser#parseSIPMessage(byte[],
 * boolean, boolean, ParseExceptionListener)} with {@code readBody = true}, {@code strict = false}, and a listener that
 * rethrows a parse error in the request or status line, From, To, Call-ID, CSeq, Via or Content-Length, and silently
 * drops any other header that fails to parse (as {@code UDPMessageChannel.handleException} does).
 * {@link #parse(byte[])} is that parser alone. {@link #judge(byte[])} adds the three checks the RI stack makes before
 * it hands a message to a transaction: SIP version 2.0 in a request (else 505), request method equal to the CSeq method
 * (else 400), and From, To, Call-ID, CSeq and Via all present (else dropped).
 *
 * <p>The facts come from a second RI parse with {@code readBody = false}, so that Content-Length is the declared value
 * (see {@link #declaredFacts(byte[])}). The Request-URI is the RI's re-encoding of its parsed URI ({@code
 * URI.toString()}); on every corpus message it equals the wire text, but the RI repairs some broken ones (RFC 5118
 * {@code ipv6-bad}: {@code sip:2001:db8::10} comes back as {@code sip:[2001:db8::10]}). Every other string is the RI's
 * parsed value.
 *
 * <p>Known RI behaviour a differential test must allow for:
 * <ul>
 *   <li>a message without Content-Length reads as {@code Content-Length: 0} (the RI attaches a default header), so the
 *       oracle reports {@code 0} where the manifests say {@link MessageFacts#ABSENT} (RFC 4475 {@code inv2543}), and
 *       the RI then drops the body;</li>
 *   <li>with several Content-Length headers the RI keeps the last one (RFC 4475 {@code mcl01}: 5);</li>
 *   <li>octets after Content-Length in a datagram become body in the RI (with {@code readBody = true}).</li>
 * </ul>
 *
 * <p>Thread-safe: every call builds its own RI parser.
 */
public final class JainSipOracle
{
    /** Header classes whose parse failure makes the RI's UDP channel reject the whole message. */
    private static final Set<Class<?>> ESSENTIAL = Set.of(
        From.class, To.class, CSeq.class, Via.class, CallID.class, ContentLength.class, RequestLine.class,
        StatusLine.class);

    private static final ParseExceptionListener STACK_LISTENER = new StackLikeListener();

    private JainSipOracle()
    {
    }

    /**
     * Parse one message with the RI parser, as the RI's UDP channel does.
     *
     * @param message the whole datagram: start line, headers, blank line, body (borrowed, not modified).
     * @return the facts the RI parsed; absent values as documented on {@link MessageFacts}.
     * @throws ParseException when the RI parser rejects the message.
     */
    public static MessageFacts parse(final byte[] message) throws ParseException
    {
        final SIPMessage parsed = new StringMsgParser().parseSIPMessage(message, true, false, STACK_LISTENER);
        if (null == parsed)
        {
            throw new ParseException("RI returned no message (empty or control characters only)", 0);
        }
        return declaredFacts(message);
    }

    /**
     * Whether the RI stack would accept the message, and what it read from it. Never throws: a RuntimeException
     * inside the RI (a torture message can provoke one) is reported as a rejection that names it.
     *
     * @param message the whole datagram (borrowed, not modified).
     * @return the verdict.
     */
    public static Verdict judge(final byte[] message)
    {
        final SIPMessage parsed;
        try
        {
            parsed = new StringMsgParser().parseSIPMessage(message, true, false, STACK_LISTENER);
        }
        catch (final ParseException ex)
        {
            return Verdict.rejected("parse error: " + oneLine(ex.getMessage()));
        }
        catch (final RuntimeException ex)
        {
            return Verdict.rejected("RI threw " + ex.getClass().getSimpleName() + ": " + oneLine(ex.getMessage()));
        }
        if (null == parsed)
        {
            return Verdict.rejected("no message");
        }

        final MessageFacts facts;
        try
        {
            facts = declaredFacts(message);
        }
        catch (final ParseException | RuntimeException ex)
        {
            return Verdict.rejected("RI failed reading facts: " + ex.getClass().getSimpleName() + ": " +
                oneLine(ex.getMessage()));
        }

        if (parsed instanceof final SIPRequest request)
        {
            final String version = request.getRequestLine().getSipVersion();
            if (!"SIP/2.0".equals(version))
            {
                return new Verdict(facts, "version " + version + " (RI stack answers 505)");
            }
        }
        if (null == parsed.getFrom() || null == parsed.getTo() || null == parsed.getCallId() ||
            null == parsed.getCSeq() || null == parsed.getViaHeaders())
        {
            return new Verdict(facts, "missing From, To, Call-ID, CSeq or Via (RI stack drops it)");
        }
        if (facts.isRequest() && !facts.method().equalsIgnoreCase(facts.cseqMethod()))
        {
            return new Verdict(facts, "CSeq method differs from request method (RI stack answers 400)");
        }
        return new Verdict(facts, null);
    }

    /**
     * Facts from a second parse that leaves the body alone ({@code readBody = false}): with {@code readBody = true} the
     * RI takes every octet after the blank line as the body and overwrites Content-Length with their count (RFC 3261
     * §18.3 says the octets past Content-Length are to be ignored), so only this parse reports the declared value.
     */
    private static MessageFacts declaredFacts(final byte[] message) throws ParseException
    {
        return factsOf(new StringMsgParser().parseSIPMessage(message, false, false, STACK_LISTENER));
    }

    private static String oneLine(final String text)
    {
        return null == text ? "" : text.replaceAll("\\[C@\\p{XDigit}+", "").replaceAll("\\s*[\\r\\n]+\\s*", " ").trim();
    }

    private static MessageFacts factsOf(final SIPMessage message)
    {
        String method = null;
        String requestUri = null;
        int status = MessageFacts.ABSENT;
        if (message instanceof final SIPRequest request)
        {
            method = request.getMethod();
            final URI uri = request.getRequestURI();
            requestUri = null == uri ? null : uri.toString();
        }
        else if (message instanceof final SIPResponse response)
        {
            status = response.getStatusCode();
        }

        final CallIdHeader callId = message.getCallId();
        final CSeqHeader cseq = message.getCSeq();
        final Via topVia = message.getTopmostVia();
        final FromHeader from = message.getFrom();
        final ToHeader to = message.getTo();
        final ContentLengthHeader contentLength = message.getContentLength();

        return new MessageFacts(
            method,
            requestUri,
            status,
            null == callId ? null : callId.getCallId(),
            null == cseq ? MessageFacts.ABSENT : cseq.getSeqNumber(),
            null == cseq ? null : cseq.getMethod(),
            null == topVia ? null : topVia.getBranch(),
            null == from ? null : from.getTag(),
            null == to ? null : to.getTag(),
            null == contentLength ? MessageFacts.ABSENT : contentLength.getContentLength());
    }

    /**
     * What the RI stack makes of a message.
     *
     * @param facts     what the RI parser read, {@code null} when it could not parse the message at all.
     * @param rejection why the RI stack would not pass the message on, {@code null} when it would.
     */
    public record Verdict(MessageFacts facts, String rejection)
    {
        static Verdict rejected(final String reason)
        {
            return new Verdict(null, reason);
        }

        /**
         * @return true when the RI stack would hand the message to its transaction layer.
         */
        public boolean accepted()
        {
            return null == rejection;
        }
    }

    /**
     * One fixture message and its manifest line. A manifest ({@code MANIFEST.tsv} in {@code rfc4475/},
     * {@code rfc5118/} and {@code corpus/} under the test resources) has a header line, then one tab-separated line per
     * message: {@code name section class syntax method request_uri status call_id cseq_number cseq_method
     * top_via_branch from_tag to_tag content_length body_length notes}, {@code -} for an absent string and {@code -1}
     * for an absent number.
     *
     * @param name       message name; the bytes are {@code name.dat} ({@code name.sip} in the corpus).
     * @param section    RFC section, {@code -} for the corpus.
     * @param category   {@code valid}, {@code invalid} or {@code valid-but-semantically-wrong}.
     * @param syntax     {@code ok}, {@code abnf-error} (some element breaks the RFC 3261 ABNF), {@code rule-error}
     *                   (matches the ABNF but breaks a rule in RFC 3261 prose), {@code framing-error}
     *                   (Content-Length or header-section termination).
     * @param expected   the facts a parser must produce (for invalid messages: what a lenient parser reads, with
     *                   {@code null}/{@code -1} where the element itself is broken).
     * @param bodyLength octets of body a correct parser delivers, {@code -1} when framing is undefined.
     * @param notes      the RFC's reason or the message's features, in a few words.
     * @param bytes      the exact message bytes.
     */
    public record Fixture(
        String name,
        String section,
        String category,
        String syntax,
        MessageFacts expected,
        int bodyLength,
        String notes,
        byte[] bytes)
    {
        /**
         * Load every fixture of one manifest from the test class path.
         *
         * @param directory {@code rfc4475}, {@code rfc5118} or {@code corpus}.
         * @return the fixtures in manifest order.
         */
        public static List<Fixture> load(final String directory)
        {
            final Path dir = resourceDirectory(directory);
            final String extension = "corpus".equals(directory) ? ".sip" : ".dat";
            try
            {
                final List<String> lines = Files.readAllLines(dir.resolve("MANIFEST.tsv"), StandardCharsets.UTF_8);
                final List<Fixture> fixtures = new ArrayList<>(lines.size());
                for (int i = 1; i < lines.size(); i++)
                {
                    final String line = lines.get(i);
                    if (line.isEmpty())
                    {
                        continue;
                    }
                    final String[] c = line.split("\t", -1);
                    if (16 != c.length)
                    {
                        throw new IllegalStateException(directory + "/MANIFEST.tsv line " + (i + 1) + ": " + c.length +
                            " columns");
                    }
                    final MessageFacts expected = new MessageFacts(
                        text(c[4]), text(c[5]), intNumber(c[6]), text(c[7]), number(c[8]), text(c[9]), text(c[10]),
                        text(c[11]), text(c[12]), intNumber(c[13]));
                    fixtures.add(new Fixture(c[0], c[1], c[2], c[3], expected, intNumber(c[14]), c[15],
                        Files.readAllBytes(dir.resolve(c[0] + extension))));
                }
                return fixtures;
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }

        /**
         * @return true when RFC 4475/5118 (or the corpus) says a parser must accept the message.
         */
        public boolean mustParse()
        {
            return !"invalid".equals(category);
        }

        private static String text(final String column)
        {
            return "-".equals(column) ? null : column;
        }

        private static long number(final String column)
        {
            if ("-".equals(column))
            {
                return MessageFacts.ABSENT;
            }
            try
            {
                return Long.parseLong(column);
            }
            catch (final NumberFormatException ex)
            {
                return MessageFacts.OUT_OF_RANGE;
            }
        }

        private static int intNumber(final String column)
        {
            final long value = number(column);
            return value > Integer.MAX_VALUE || value < Integer.MIN_VALUE ? MessageFacts.OUT_OF_RANGE : (int)value;
        }

        private static Path resourceDirectory(final String directory)
        {
            final URL url = JainSipOracle.class.getResource("/" + directory + "/MANIFEST.tsv");
            if (null == url)
            {
                throw new IllegalStateException("no " + directory + "/MANIFEST.tsv on the test class path");
            }
            try
            {
                return Path.of(url.toURI()).getParent();
            }
            catch (final URISyntaxException ex)
            {
                throw new IllegalStateException(ex);
            }
        }
    }

    private static final class StackLikeListener implements ParseExceptionListener
    {
        @Override
        @SuppressWarnings("rawtypes")
        public void handleException(
            final ParseException ex,
            final SIPMessage message,
            final Class headerClass,
            final String headerText,
            final String messageText) throws ParseException
        {
            if (null != headerClass && ESSENTIAL.contains(headerClass))
            {
                throw ex;
            }
        }
    }
}
