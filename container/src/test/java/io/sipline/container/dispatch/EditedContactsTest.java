package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/**
 * A Contact of ours that the application edited (JSR 289 §4.1.3) moves to the transport the message leaves on
 * (RFC 3261 §8.1.1.8), keeping the edits; anything else is left alone.
 */
class EditedContactsTest
{
    private static final int[] PORTS = {5060, 5062, 5063, -1, -1};

    @Test
    void anEditedContactKeepsUserAndParametersOnTheTransportsUri()
    {
        assertEquals("Conf <sip:conference-7@192.0.2.1:5062;transport=tcp;app=c2c>;isfocus",
            EditedContacts.moved("\"Conf\" <sip:conference-7@192.0.2.1:5060;app=c2c>;isfocus",
                "<sip:192.0.2.1:5062;transport=tcp>", "192.0.2.1", PORTS));
    }

    @Test
    void theTransportsOwnParametersWin()
    {
        assertEquals("<sip:u@192.0.2.1:5063;transport=tls>", EditedContacts.moved("<sip:u@192.0.2.1:5060;lr>",
            "<sip:192.0.2.1:5063;transport=tls>", "192.0.2.1", PORTS));
    }

    @Test
    void aContactThatIsNotOursIsLeftAlone()
    {
        assertNull(EditedContacts.moved("<sip:alice@192.0.2.99:5060>", "<sip:192.0.2.1:5062;transport=tcp>",
            "192.0.2.1", PORTS));
        assertNull(EditedContacts.moved("<sip:alice@192.0.2.1:5999>", "<sip:192.0.2.1:5062;transport=tcp>",
            "192.0.2.1", PORTS));
        assertNull(EditedContacts.moved("<tel:+15551234>", "<sip:192.0.2.1:5062;transport=tcp>", "192.0.2.1", PORTS));
        assertNull(EditedContacts.moved("not an address <", "<sip:192.0.2.1:5062;transport=tcp>", "192.0.2.1",
            PORTS));
    }
}
