package ${package};

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import io.sipline.junit.ClientTransaction;
import io.sipline.junit.SipMessage;
import io.sipline.junit.SiplineServer;
import io.sipline.junit.SiplineTest;
import io.sipline.junit.UserAgent;

/** The application in a container started for this class, with its DAR, called by a user agent on loopback. */
@SiplineTest(classes = "target/classes", dar = "src/main/dar/dar.properties")
class CallAnsweringServletTest
{
    @Test
    void answersAndHangsUp(final SiplineServer sipline, final UserAgent alice)
    {
        final ClientTransaction invite = alice.invite(sipline.uri("anyone"));
        invite.expect(180);
        final SipMessage ok = invite.expect(200);
        assertEquals("hello", ok.header("X-Greeting"));
        invite.ack();
        invite.dialog().bye().expect(200);
    }

    @Test
    void answersOptions(final SiplineServer sipline, final UserAgent alice)
    {
        alice.send(alice.createRequest("OPTIONS", sipline.uri("anyone"))).expect(200);
    }
}
