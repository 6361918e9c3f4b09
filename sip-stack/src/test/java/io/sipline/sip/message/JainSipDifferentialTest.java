package io.sipline.sip.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;

import io.sipline.sip.message.oracle.JainSipOracle;
import io.sipline.sip.message.oracle.JainSipOracle.Fixture;
import io.sipline.sip.message.oracle.MessageFacts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Differential test against the JAIN-SIP RI parser (what today's users run): over the corpus of real-world style
 * messages and the torture messages that both accept, both parsers must agree on method, Request-URI, status,
 * Call-ID, CSeq, top Via branch, From and To tags and Content-Length.
 *
 * <p>One documented difference is normalised: with no Content-Length header the RI reports 0 (it adds a default
 * header); Sipline reports -1, "absent", and takes the body to the end of the datagram (RFC 3261 §18.3).
 */
class JainSipDifferentialTest
{
    static Stream<Arguments> corpus()
    {
        return Fixture.load("corpus").stream().map(f -> Arguments.of(f.name(), f));
    }

    @Test
    void shouldHaveAtLeastFiftyCorpusMessages()
    {
        assertTrue(Fixture.load("corpus").size() >= 50);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void shouldAgreeWithJainSipOnCorpus(final String name, final Fixture f) throws Exception
    {
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(f.bytes(), 0, f.bytes().length, m), name);
        final MessageFacts ours = SiplineFacts.of(m);
        assertEquals(normalise(JainSipOracle.parse(f.bytes()), ours), ours, name);
        assertEquals(f.expected(), ours, name + " against the manifest");
    }

    @Test
    void shouldAgreeWithJainSipOnTortureMessagesBothAccept() throws Exception
    {
        int compared = 0;
        for (final String dir : List.of("rfc4475", "rfc5118"))
        {
            for (final Fixture f : Fixture.load(dir))
            {
                final JainSipOracle.Verdict verdict = JainSipOracle.judge(f.bytes());
                final SipMessage m = new SipMessage();
                if (!verdict.accepted() || SipMessageParser.parseDatagram(f.bytes(), 0, f.bytes().length, m) !=
                    ParseResult.OK)
                {
                    continue;
                }
                final MessageFacts ours = SiplineFacts.of(m);
                assertEquals(normalise(verdict.facts(), ours), ours, dir + "/" + f.name());
                compared++;
            }
        }
        assertTrue(compared >= 30, "compared " + compared);
    }

    private static MessageFacts normalise(final MessageFacts ri, final MessageFacts ours)
    {
        if (ours.contentLength() == MessageFacts.ABSENT && ri.contentLength() == 0)
        {
            return new MessageFacts(ri.method(), ri.requestUri(), ri.status(), ri.callId(), ri.cseqNumber(),
                ri.cseqMethod(), ri.topViaBranch(), ri.fromTag(), ri.toTag(), MessageFacts.ABSENT);
        }
        return ri;
    }
}
