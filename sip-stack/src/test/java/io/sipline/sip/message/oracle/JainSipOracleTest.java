package io.sipline.sip.message.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import io.sipline.sip.message.oracle.JainSipOracle.Fixture;
import io.sipline.sip.message.oracle.JainSipOracle.Verdict;
import org.junit.jupiter.api.Test;

class JainSipOracleTest
{
    private static final byte[] CRLF_CRLF = {'\r', '\n', '\r', '\n'};

    @Test
    void shouldKeepTortureFixturesByteIdenticalToTheirChecksums() throws IOException, NoSuchAlgorithmException
    {
        for (final String directory : List.of("rfc4475", "rfc5118"))
        {
            final Path dir = directoryOf(directory);
            final List<String> sums = Files.readAllLines(dir.resolve("SHA256SUMS"), StandardCharsets.US_ASCII);
            assertFalse(sums.isEmpty(), directory);
            for (final String line : sums)
            {
                final String expected = line.substring(0, 64);
                final String file = line.substring(66);
                final byte[] digest =
                    MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(dir.resolve(file)));
                assertEquals(expected, HexFormat.of().formatHex(digest), directory + "/" + file);
            }
        }
    }

    @Test
    void shouldListEveryFixtureFileInItsManifest() throws IOException
    {
        assertManifestCoversDirectory("rfc4475", ".dat", 50);
        assertManifestCoversDirectory("rfc5118", ".dat", 12);
        assertManifestCoversDirectory("corpus", ".sip", 61);
    }

    @Test
    void shouldGiveEveryCorpusMessageCrlfLinesAndTheRightContentLength()
    {
        for (final Fixture fixture : Fixture.load("corpus"))
        {
            final byte[] bytes = fixture.bytes();
            final int headerEnd = indexOf(bytes, CRLF_CRLF);
            assertTrue(headerEnd > 0, fixture.name());
            for (int i = 0; i < headerEnd; i++)
            {
                if ('\n' == bytes[i])
                {
                    assertEquals('\r', bytes[i - 1], fixture.name() + ": bare LF at " + i);
                }
            }
            final int bodyLength = bytes.length - headerEnd - CRLF_CRLF.length;
            assertEquals(bodyLength, fixture.expected().contentLength(), fixture.name());
            assertEquals(bodyLength, fixture.bodyLength(), fixture.name());
        }
    }

    @Test
    void shouldParseEveryCorpusMessageAsItsManifestSays()
    {
        final List<Fixture> corpus = Fixture.load("corpus");
        assertTrue(corpus.size() >= 60, "corpus size " + corpus.size());
        for (final Fixture fixture : corpus)
        {
            final Verdict verdict = JainSipOracle.judge(fixture.bytes());
            assertTrue(verdict.accepted(), fixture.name() + ": " + verdict.rejection());
            assertEquals(fixture.expected(), verdict.facts(), fixture.name());
        }
    }

    @Test
    void shouldReadTheBenchmarkInvite() throws IOException, ParseException
    {
        final MessageFacts facts = JainSipOracle.parse(corpusBytes("invite-sdp.sip"));

        assertEquals(new MessageFacts(
            "INVITE", "sip:bob@biloxi.example.com", MessageFacts.ABSENT, "a84b4c76e66710@pc33.atlanta.example.com",
            314159L, "INVITE", "z9hG4bK776asdhds", "1928301774", null, 300), facts);
        assertTrue(facts.isRequest());
    }

    @Test
    void shouldReadCompactHeaderNames() throws IOException, ParseException
    {
        final MessageFacts facts = JainSipOracle.parse(corpusBytes("055-invite-compact-forms.sip"));

        assertEquals("987asjd97y7atg@198.51.100.8", facts.callId());
        assertEquals("z9hG4bKkjshdyff", facts.topViaBranch());
        assertEquals("88sja8x", facts.fromTag());
        assertNull(facts.toTag());
        assertEquals(986759L, facts.cseqNumber());
        assertEquals(180, facts.contentLength());
    }

    @Test
    void shouldTakeTheBranchOfTheFirstCommaJoinedVia() throws IOException, ParseException
    {
        final MessageFacts facts = JainSipOracle.parse(corpusBytes("052-200-ok-comma-joined-via.sip"));

        assertEquals(200, facts.status());
        assertNull(facts.method());
        assertNull(facts.requestUri());
        assertEquals("z9hG4bK6a9f.2b2d4c5a6e7f8091a2b3c4d5e6f70819.0", facts.topViaBranch());
        assertEquals("314159", facts.toTag());
    }

    @Test
    void shouldUnfoldContinuationLines() throws IOException, ParseException
    {
        final MessageFacts facts = JainSipOracle.parse(corpusBytes("056-invite-folded-lines.sip"));

        assertEquals("z9hG4bK9cs1Pa", facts.topViaBranch());
        assertEquals("f0ld3d", facts.fromTag());
        assertEquals(1L, facts.cseqNumber());
        assertEquals("INVITE", facts.cseqMethod());
    }

    @Test
    void shouldAcceptResponsesWithoutReasonPhrase() throws IOException, ParseException
    {
        assertEquals(180, JainSipOracle.parse(corpusBytes("049-180-ringing-no-reason-phrase.sip")).status());
        assertEquals(200, JainSipOracle.parse(corpusBytes("024-200-ok-empty-reason-phrase.sip")).status());
    }

    @Test
    void shouldAcceptRegisterWithWildcardContact() throws IOException
    {
        final Verdict verdict = JainSipOracle.judge(corpusBytes("018-register-contact-star.sip"));

        assertTrue(verdict.accepted(), verdict.rejection());
        assertEquals("REGISTER", verdict.facts().method());
        assertEquals(0, verdict.facts().contentLength());
    }

    @Test
    void shouldRejectWhatTheRiCannotParse()
    {
        final Verdict verdict = JainSipOracle.judge("INVITE sip:x@example.com SIP/2.0\r\nVia: ;;;\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII));

        assertFalse(verdict.accepted());
        assertNull(verdict.facts());
    }

    @Test
    void shouldReportWhichTortureMessagesTheRiAccepts() throws IOException
    {
        final StringBuilder report = new StringBuilder(16 * 1024);
        for (final String directory : List.of("rfc4475", "rfc5118"))
        {
            report.append("== JAIN-SIP RI 1.3.0-91 on ").append(directory)
                .append(" (verdict / RFC class / fact differences from MANIFEST.tsv)\n");
            final Map<String, Integer> tally = new TreeMap<>();
            for (final Fixture fixture : Fixture.load(directory))
            {
                final Verdict verdict = JainSipOracle.judge(fixture.bytes());
                final String outcome = verdict.accepted() ? "ACCEPT" : "REJECT";
                tally.merge(outcome + " " + fixture.category(), 1, Integer::sum);
                report.append(String.format("%-30s %-6s %-28s %s%n", fixture.name(), outcome, fixture.category(),
                    verdict.accepted() ? differences(fixture.expected(), verdict.facts()) : verdict.rejection()));
            }
            report.append("tally: ").append(tally).append("\n\n");
        }
        System.out.print(report);
        final Path target = Path.of("target");
        if (Files.isDirectory(target))
        {
            Files.writeString(target.resolve("jain-sip-torture-report.txt"), report, StandardCharsets.UTF_8);
        }
        assertFalse(report.isEmpty());
    }

    private static String differences(final MessageFacts expected, final MessageFacts actual)
    {
        final List<String> out = new ArrayList<>();
        diff(out, "method", expected.method(), actual.method());
        diff(out, "requestUri", expected.requestUri(), actual.requestUri());
        diff(out, "status", expected.status(), actual.status());
        diff(out, "callId", expected.callId(), actual.callId());
        diff(out, "cseqNumber", expected.cseqNumber(), actual.cseqNumber());
        diff(out, "cseqMethod", expected.cseqMethod(), actual.cseqMethod());
        diff(out, "topViaBranch", expected.topViaBranch(), actual.topViaBranch());
        diff(out, "fromTag", expected.fromTag(), actual.fromTag());
        diff(out, "toTag", expected.toTag(), actual.toTag());
        diff(out, "contentLength", expected.contentLength(), actual.contentLength());
        return out.isEmpty() ? "facts as manifest" : String.join("; ", out);
    }

    private static void diff(final List<String> out, final String field, final Object expected, final Object actual)
    {
        if (null == expected ? null != actual : !expected.equals(actual))
        {
            out.add(field + " manifest=" + expected + " ri=" + actual);
        }
    }

    private static void assertManifestCoversDirectory(final String directory, final String extension, final int count)
        throws IOException
    {
        final TreeSet<String> inManifest = new TreeSet<>();
        for (final Fixture fixture : Fixture.load(directory))
        {
            assertTrue(inManifest.add(fixture.name()), directory + ": duplicate " + fixture.name());
        }
        final TreeSet<String> onDisk = new TreeSet<>();
        try (Stream<Path> files = Files.list(directoryOf(directory)))
        {
            files.map(p -> p.getFileName().toString())
                .filter(n -> n.endsWith(extension))
                .forEach(n -> onDisk.add(n.substring(0, n.length() - extension.length())));
        }
        assertEquals(onDisk, inManifest, directory);
        assertTrue(inManifest.size() >= count, directory + " has " + inManifest.size());
    }

    private static byte[] corpusBytes(final String file) throws IOException
    {
        return Files.readAllBytes(directoryOf("corpus").resolve(file));
    }

    private static Path directoryOf(final String directory)
    {
        try
        {
            return Path.of(JainSipOracleTest.class.getResource("/" + directory + "/MANIFEST.tsv").toURI()).getParent();
        }
        catch (final java.net.URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static int indexOf(final byte[] haystack, final byte[] needle)
    {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++)
        {
            for (int j = 0; j < needle.length; j++)
            {
                if (haystack[i + j] != needle[j])
                {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
