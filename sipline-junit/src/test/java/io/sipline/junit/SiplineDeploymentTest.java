package io.sipline.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/** Applications deployed by the test methods: parameters, WARs, record-routed dialogs, undeployment, errors. */
@SiplineTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SiplineDeploymentTest
{
    @Test
    @Order(1)
    void proxiesWithRecordRouteAndTheDialogFollowsIt(final SiplineServer sipline, final UserAgent alice,
        final UserAgent bob)
    {
        sipline.deployment(Path.of("target/test-classes"), Path.of("src/test/webapp/proxy"))
            .initParam("relay", "target", bob.uri()).deploy();
        final ClientTransaction invite = alice.invite(sipline.uri("bob"));
        final ServerTransaction incoming = bob.expectRequest("INVITE");
        assertFalse(incoming.request().headers("Record-Route").isEmpty(), incoming.request().toString());
        incoming.respond(200);
        invite.expect(200);
        final Dialog dialog = invite.dialog();
        assertEquals(1, dialog.routeSet().size(), "the proxy's Record-Route");
        assertEquals(bob.uri(), dialog.remoteTarget());
        invite.ack();
        bob.expectRequest("ACK");
        final ClientTransaction bye = incoming.dialog().bye();
        final SipMessage byeIn = alice.expectRequest("BYE").respond(200).request();
        assertEquals(2, byeIn.headers("Via").size(), "the BYE came through the proxy");
        bye.expect(200);
    }

    @Test
    @Order(2)
    void deploysAWarWithAContextParameter(final SiplineServer sipline, final UserAgent alice,
        @TempDir final Path dir) throws IOException
    {
        assertEquals(Set.of(), sipline.applications(), "the previous test's application is undeployed");
        final Path war = war(dir.resolve("uas.war"));
        assertEquals("uas", sipline.deployment(war).contextParam("greeting", "bonjour").deploy());
        final ClientTransaction invite = alice.invite(sipline.uri("uas"));
        assertEquals("bonjour", invite.expect(200).header("X-Greeting"));
        invite.ack();
        invite.dialog().bye().expect(200);
    }

    @Test
    @Order(3)
    void saysWhyAnApplicationCannotBeDeployed(final SiplineServer sipline)
    {
        final IllegalStateException missing =
            assertThrows(IllegalStateException.class, () -> sipline.deployment(Path.of("no/such.war")).deploy());
        assertTrue(missing.getMessage().contains("no/such.war"), missing.getMessage());
        final IllegalStateException servlet = assertThrows(IllegalStateException.class, () -> sipline
            .deployment(Path.of("target/test-classes"), Path.of("src/test/webapp/proxy"))
            .initParam("nosuch", "target", "sip:x@127.0.0.1").deploy());
        assertTrue(servlet.getMessage().contains("nosuch"), servlet.getMessage());
        assertEquals(Set.of(), sipline.applications());
    }

    /** The uas test application as a WAR: its sip.xml and the test application classes. */
    private static Path war(final Path war) throws IOException
    {
        final Path classes = Path.of("target/test-classes");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(war));
            Stream<Path> files = Files.walk(classes.resolve("io/sipline/junit/apps")))
        {
            zip.putNextEntry(new ZipEntry("WEB-INF/sip.xml"));
            zip.write(Files.readAllBytes(Path.of("src/test/webapp/uas/WEB-INF/sip.xml")));
            for (final Path p : files.filter(Files::isRegularFile).toList())
            {
                zip.putNextEntry(new ZipEntry("WEB-INF/classes/" + classes.relativize(p).toString()));
                zip.write(Files.readAllBytes(p));
            }
        }
        return war;
    }

}
