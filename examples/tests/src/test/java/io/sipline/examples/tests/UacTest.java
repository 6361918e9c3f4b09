package io.sipline.examples.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.sipline.junit.SipMessage;
import io.sipline.junit.SiplineServer;
import io.sipline.junit.SiplineTest;
import io.sipline.junit.UserAgent;

/** The uac example: once deployed it sends OPTIONS from "from" to "target" every "interval-seconds". */
@SiplineTest
class UacTest
{
    @Test
    void pingsTheTargetPeriodically(final SiplineServer sipline, final UserAgent bob)
    {
        sipline.deployment(Path.of("../uac/target/uac.war")).contextParam("target", bob.uri("options"))
            .contextParam("from", "sip:monitor@example.com").contextParam("interval-seconds", "1").deploy();
        final SipMessage first = bob.expectRequest("OPTIONS", Duration.ofSeconds(5)).respond(200).request();
        assertEquals(bob.uri("options"), first.requestUri());
        assertEquals("sip:monitor@example.com", SipMessage.uri(first.header("From")));
        final SipMessage second = bob.expectRequest("OPTIONS", Duration.ofSeconds(5)).respond(200).request();
        assertEquals(first.header("To"), second.header("To"));
    }
}
