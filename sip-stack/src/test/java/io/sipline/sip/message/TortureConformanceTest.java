package io.sipline.sip.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.sipline.sip.message.oracle.JainSipOracle.Fixture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RFC 4475 (SIP torture tests) and RFC 5118 (IPv6 torture tests): every message of both archives, byte for byte.
 * Messages the RFCs call valid, and the ones that are only semantically wrong, parse to the values the manifests
 * write down; invalid ones are rejected for the reason listed below, which is what the 400 (or 505) says.
 */
class TortureConformanceTest
{
    /** Our verdict on each message that does not parse, with the RFC's reason in the comment. */
    private static final Map<String, ParseResult> REJECTED = Map.ofEntries(
        Map.entry("badinv01", ParseResult.BAD_VIA),                 // §3.1.2.1 extraneous ; and , in Via
        Map.entry("clerr", ParseResult.BODY_TOO_SHORT),             // §3.1.2.2 Content-Length larger than body
        Map.entry("ncl", ParseResult.BAD_CONTENT_LENGTH),           // §3.1.2.3 negative Content-Length
        Map.entry("scalar02", ParseResult.BAD_CSEQ),                // §3.1.2.4 CSeq above 2^32-1
        Map.entry("scalarlg", ParseResult.BAD_CSEQ),                // §3.1.2.5 response with huge scalars
        Map.entry("quotbal", ParseResult.UNTERMINATED_QUOTE),       // §3.1.2.6 unterminated quoted string
        Map.entry("ltgtruri", ParseResult.BAD_REQUEST_URI),         // §3.1.2.7 <> around the Request-URI
        Map.entry("lwsruri", ParseResult.BAD_REQUEST_URI),          // §3.1.2.8 LWS inside the Request-URI
        Map.entry("lwsstart", ParseResult.BAD_REQUEST_URI),         // §3.1.2.9 several SP in the Request-Line
        Map.entry("trws", ParseResult.BAD_VERSION),                 // §3.1.2.10 trailing SP after SIP/2.0
        Map.entry("escruri", ParseResult.BAD_REQUEST_URI),          // §3.1.2.11 headers in the Request-URI
        Map.entry("regbadct", ParseResult.BAD_CONTACT),             // §3.1.2.13 ?headers in an addr-spec Contact
        Map.entry("badaspec", ParseResult.BAD_TO),                  // §3.1.2.14 spaces inside <>
        Map.entry("baddn", ParseResult.BAD_FROM),                   // §3.1.2.15 unquoted display name with ","
        Map.entry("badvers", ParseResult.UNSUPPORTED_VERSION),      // §3.1.2.16 SIP/7.0 → 505
        Map.entry("mismatch01", ParseResult.CSEQ_METHOD_MISMATCH),  // §3.1.2.17
        Map.entry("mismatch02", ParseResult.CSEQ_METHOD_MISMATCH),  // §3.1.2.18 (501 or 400)
        Map.entry("bigcode", ParseResult.BAD_STATUS_CODE),          // §3.1.2.19 status code not 3DIGIT
        Map.entry("insuf", ParseResult.MISSING_FROM),               // §3.3.2 no Call-ID, From, To → 400
        Map.entry("multi01", ParseResult.DUPLICATE_HEADER),         // §3.3.9 several Call-ID, From, To, CSeq
        Map.entry("mcl01", ParseResult.DUPLICATE_HEADER),           // §3.3.10 two Content-Length values
        Map.entry("test", ParseResult.BAD_REQUEST_URI),             // in the archive only: no SIP-Version
        Map.entry("ipv6-bad", ParseResult.BAD_REQUEST_URI));        // RFC 5118 §4.2 IPv6 without brackets

    /**
     * Invalid messages we accept at the message layer, and why.
     * baddate (§3.1.2.12): a Date in a time zone other than GMT. The Date value is read only when asked, and
     * nothing in a SIP element depends on it; the RFC lets an element accept the request.
     */
    private static final List<String> ACCEPTED_INVALID = List.of("baddate");

    static Stream<Arguments> fixtures()
    {
        return Stream.concat(Fixture.load("rfc4475").stream(), Fixture.load("rfc5118").stream())
            .map(f -> Arguments.of(f.name(), f));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void shouldParseOrRejectEachTortureMessageAsTheRfcSays(final String name, final Fixture f)
    {
        final SipMessage m = new SipMessage();
        final ParseResult result = SipMessageParser.parseDatagram(f.bytes(), 0, f.bytes().length, m);
        final ParseResult expectedRejection = REJECTED.get(name);
        if (null != expectedRejection)
        {
            assertEquals(expectedRejection, result, name + ": " + f.notes());
            assertTrue(m.errorOffset() >= 0, "the fault has a position");
            return;
        }
        assertEquals(ParseResult.OK, result, () -> name + " at " + m.errorOffset() + ": " + f.notes());
        if ("invalid".equals(f.category()))
        {
            assertTrue(ACCEPTED_INVALID.contains(name),
                name + " is invalid and parsed: add it to a list, or reject it");
        }
        assertEquals(f.expected(), SiplineFacts.of(m), name);
        if (f.bodyLength() >= 0)
        {
            assertEquals(f.bodyLength(), m.bodyLength(), name + " body");
        }
    }
}
