package io.sipline.container.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import javax.servlet.sip.ar.SipApplicationRoutingRegion;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DarConfigurationTest
{
    @Test
    void shouldParseTheStandardFormat() throws Exception
    {
        final DarConfiguration config = fixture("composition.dar");

        assertEquals(List.of("INVITE", "REGISTER", "MESSAGE", "OPTIONS"), List.copyOf(config.methods()));
        final List<DarTuple> invite = config.tuples("INVITE");
        assertEquals(3, invite.size());
        assertEquals(new DarTuple("call-screening", "From", null, SipApplicationRoutingRegion.ORIGINATING_REGION, "",
            DarRouteModifier.NO_ROUTE, "0", 4), invite.get(0));
        assertEquals("b2bua", invite.get(1).applicationName());
        assertEquals("voicemail", invite.get(2).applicationName());
        assertEquals("To", invite.get(2).subscriberHeader());
        assertEquals(SipApplicationRoutingRegion.TERMINATING_REGION, invite.get(2).region());
        assertEquals("2", invite.get(2).stateInfo());
        assertEquals(4, invite.get(2).line(), "a continued line keeps its first line number");

        final DarTuple registrar = config.tuples("REGISTER").getFirst();
        assertNull(registrar.subscriberHeader());
        assertEquals("sip:registrar@example.com", registrar.subscriberUri());
        assertEquals(SipApplicationRoutingRegion.NEUTRAL_REGION, registrar.region());

        final List<DarTuple> message = config.tuples("MESSAGE");
        assertEquals("P-Asserted-Identity", message.get(0).subscriberHeader());
        assertEquals(SipApplicationRoutingRegion.ORIGINATING_REGION, message.get(0).region(), "case-insensitive");
        assertEquals(DarRouteModifier.ROUTE_BACK, message.get(0).modifier());
        assertNull(message.get(1).subscriberHeader());
        assertNull(message.get(1).subscriberUri());
        assertEquals("sip:im-gw.example.net;lr", message.get(1).route());
        assertEquals(DarRouteModifier.ROUTE_FINAL, message.get(1).modifier());
        assertEquals(DarRouteModifier.ROUTE, config.tuples("OPTIONS").getFirst().modifier());

        assertTrue(config.tuples("BYE").isEmpty());
        assertTrue(config.tuples("invite").isEmpty(), "methods are case-sensitive");
    }

    @Test
    void shouldAcceptQuotesEscapesEqualsSignsAndBlankLines() throws Exception
    {
        final DarConfiguration config = DarConfiguration.parse("""

               # comment
            INFO=("odd \\"name\\"","DAR:Call-Info","NEUTRAL","","NO_ROUTE","0")  ,  \\
              ( "second" , "" , "NEUTRAL" , "" , "NO_ROUTE" , "1" )
            """, "inline");

        assertEquals("odd \"name\"", config.tuples("INFO").get(0).applicationName());
        assertEquals("second", config.tuples("INFO").get(1).applicationName());
        assertEquals(3, config.tuples("INFO").get(0).line());
        assertTrue(DarConfiguration.parse("", "empty").isEmpty());
        assertTrue(DarConfiguration.parse("# nothing\n\n", "comments").isEmpty());
    }

    @Test
    void shouldRefuseMalformedLinesWithTheirNumber() throws Exception
    {
        final DarConfigurationException fromFile = assertThrows(DarConfigurationException.class,
            () -> fixture("malformed.dar"));
        assertEquals(4, fromFile.line());
        assertEquals("malformed.dar", fromFile.source());
        assertTrue(fromFile.reason().contains("routing region 'TERMINATNG'"), fromFile.getMessage());
        assertTrue(fromFile.getMessage().startsWith("malformed.dar:4: "), fromFile.getMessage());

        assertRefused("INVITE (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\")", "expected ':' or '='");
        assertRefused("INVITE: ", "has no tuples");
        assertRefused("INVITE: \"a\", \"DAR:From\"", "expected '(' starting tuple 1");
        assertRefused("INVITE: (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\")", "has 5 fields, expected 6");
        assertRefused("INVITE: (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\", \"x\")",
            "has 7 fields");
        assertRefused("INVITE: (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\"", "',' or ')'");
        assertRefused("INVITE: (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0) ", "unterminated");
        assertRefused("INVITE: (a, \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\")", "'\"' starting a quoted");
        assertRefused("INVITE: (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\") (\"b\")",
            "',' between tuples");
        assertRefused("INVITE: (\"\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\")", "empty application name");
        assertRefused("INVITE: (\"a\", \"DAR:\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\")", "DAR:<header name>");
        assertRefused("INVITE: (\"a\", \"alice\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\")",
            "neither DAR:<header name> nor a URI");
        assertRefused("INVITE: (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"REROUTE\", \"0\")",
            "route modifier 'REROUTE'");
        assertRefused("INVITE: (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"ROUTE\", \"0\")", "ROUTE needs a route");
        assertRefused("INVITE: (\"a\", \"DAR:From\", \"NEUTRAL\", \"proxy.example.com\", \"ROUTE\", \"0\")",
            "is not a URI");
        assertRefused("INV ITE: (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\")", "expected ':' or '='");
        assertRefused("IN<VITE: (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\")", "not a SIP method");
        assertRefused(": (\"a\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\")", "expected 'METHOD:");

        final DarConfigurationException twice = assertThrows(DarConfigurationException.class,
            () -> DarConfiguration.parse("""
                INVITE: ("a", "DAR:From", "NEUTRAL", "", "NO_ROUTE", "0")
                BYE: ("a", "DAR:From", "NEUTRAL", "", "NO_ROUTE", "0")
                INVITE: ("b", "DAR:From", "NEUTRAL", "", "NO_ROUTE", "0")
                """, "twice.dar"));
        assertEquals(3, twice.line());
        assertTrue(twice.reason().contains("already defined at line 1"), twice.getMessage());
    }

    @Test
    void shouldReadFromPropertiesAndFiles(@TempDir final Path dir) throws Exception
    {
        final Properties properties = new Properties();
        properties.setProperty("INVITE", "(\"b2bua\", \"DAR:From\", \"ORIGINATING\", \"\", \"NO_ROUTE\", \"0\")");
        final DarConfiguration config = DarConfiguration.fromProperties(properties, "props");
        assertEquals("b2bua", config.tuples("INVITE").getFirst().applicationName());
        assertEquals(0, config.tuples("INVITE").getFirst().line());

        properties.setProperty("BYE", "(\"x\")");
        final DarConfigurationException bad = assertThrows(DarConfigurationException.class,
            () -> DarConfiguration.fromProperties(properties, "props"));
        assertTrue(bad.getMessage().startsWith("props: method BYE: tuple 1 has 1 fields"), bad.getMessage());

        final Path file = dir.resolve("dar.properties");
        Files.writeString(file, "REGISTER: (\"registrar\", \"DAR:To\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"0\")\n");
        assertEquals("registrar", DarConfiguration.load(file).tuples("REGISTER").getFirst().applicationName());
        final DarConfigurationException missing = assertThrows(DarConfigurationException.class,
            () -> DarConfiguration.load(dir.resolve("absent.properties")));
        assertTrue(missing.getMessage().contains("absent.properties"), missing.getMessage());
    }

    private static void assertRefused(final String line, final String reason)
    {
        final DarConfigurationException ex = assertThrows(DarConfigurationException.class,
            () -> DarConfiguration.parse("# header\n" + line + "\n", "test.dar"), line);
        assertEquals(2, ex.line(), ex.getMessage());
        assertTrue(ex.reason().contains(reason), ex.getMessage() + "  (expected: " + reason + ')');
    }

    static DarConfiguration fixture(final String name) throws Exception
    {
        try (InputStream in = DarConfigurationTest.class.getResourceAsStream("/router/" + name);
            Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8))
        {
            return DarConfiguration.parse(reader, name);
        }
    }
}
