package io.sipline.media.webrtc;

import io.sipline.media.stun.StunAddress;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunResult;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ICE-lite agent on its own: responses captured, the clock passed in by the test.
 */
class IceLiteAgentTest
{
    private static final String UFRAG = "LiTe";
    private static final String PASSWORD = "relayPasswordOf24Chars0";
    private static final long CONSENT_MS = 30_000;

    private final List<byte[]> sent = new ArrayList<>();
    private final List<InetSocketAddress> sentTo = new ArrayList<>();
    private final IceLiteAgent agent = new IceLiteAgent(UFRAG, PASSWORD, new StunIntegrity(), (buf, off, len, to) -> {
        sent.add(Arrays.copyOfRange(buf, off, off + len));
        sentTo.add(to);
    }, CONSENT_MS);
    private final IceChecks checks = new IceChecks();
    private final byte[] request = new byte[512];
    private final InetSocketAddress browser = new InetSocketAddress("192.0.2.10", 50000);
    private final InetSocketAddress otherPath = new InetSocketAddress("198.51.100.7", 61000);

    private int check(final String username, final String password, final boolean useCandidate,
        final InetSocketAddress from, final long nowMs)
    {
        final int n = checks.request(request, username, password, useCandidate);
        return agent.onStun(request, 0, n, from, nowMs);
    }

    private StunMessageFlyweight lastResponse()
    {
        final StunMessageFlyweight response = new StunMessageFlyweight();
        final byte[] bytes = sent.getLast();
        assertTrue(response.wrap(bytes, 0, bytes.length) >= 0);
        return response;
    }

    @Test
    void shouldAnswerAValidCheckWithItsSourceSignedWithOurPassword()
    {
        assertEquals(IceLiteAgent.CHECKED, check(UFRAG + ":brws", PASSWORD, false, browser, 0));
        assertEquals(1, sent.size());
        assertEquals(browser, sentTo.getFirst());
        final StunMessageFlyweight response = lastResponse();
        assertEquals(StunMessageType.BINDING_SUCCESS_RESPONSE, response.messageType());
        final StunAddress mapped = new StunAddress();
        assertEquals(StunResult.OK,
            response.readAddress(response.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS), mapped));
        assertEquals(browser, mapped.toInetSocketAddress());
        final StunIntegrity integrity = new StunIntegrity();
        assertEquals(StunResult.VERIFIED,
            response.verifyMessageIntegrity(integrity, StunCredential.shortTerm(PASSWORD)));
        assertEquals(StunResult.VERIFIED, response.verifyFingerprint(integrity));
        assertNull(agent.selected(), "no pair is selected without USE-CANDIDATE");
        assertEquals(1, agent.checks());
        assertTrue(agent.isChecked(browser));
        assertFalse(agent.isChecked(otherPath));
    }

    @Test
    void shouldAnswer401AndCountAWrongPasswordOrUfragAndSelectNothing()
    {
        assertEquals(IceLiteAgent.UNAUTHENTICATED,
            check(UFRAG + ":brws", "notTheRelayPassword0000", true, browser, 0));
        assertEquals(401, lastResponse().errorCode(lastResponse().findAttribute(StunAttributeType.ERROR_CODE)));
        assertEquals(-1, lastResponse().integrityIndex(), "RFC 8489 §9.1.3: a 401 carries no integrity");
        assertEquals(IceLiteAgent.UNAUTHENTICATED, check("Other:brws", PASSWORD, true, browser, 0));
        assertEquals(401, lastResponse().errorCode(lastResponse().findAttribute(StunAttributeType.ERROR_CODE)));
        assertEquals(2, agent.unauthenticated());
        assertEquals(2, agent.rejected());
        assertNull(agent.selected());
        assertFalse(agent.isChecked(browser), "an unauthenticated source may not start DTLS");
        assertEquals(0, agent.checks());
    }

    @Test
    void shouldDropACheckWithABadFingerprintWithoutAnswering()
    {
        final int n = checks.request(request, UFRAG + ":brws", PASSWORD, true);
        request[n - 1] ^= 1;
        assertEquals(IceLiteAgent.DROPPED, agent.onStun(request, 0, n, browser, 0));
        assertEquals(IceLiteAgent.DROPPED, agent.onStun(new byte[] {0, 1, 0}, 0, 3, browser, 0));
        assertTrue(sent.isEmpty());
        assertEquals(2, agent.dropped());
        assertNull(agent.selected());
    }

    @Test
    void shouldSelectTheNominatedPairAndFollowARenomination()
    {
        assertEquals(IceLiteAgent.CHECKED, check(UFRAG + ":brws", PASSWORD, false, otherPath, 0));
        assertNull(agent.selected());
        assertEquals(IceLiteAgent.NOMINATED, check(UFRAG + ":brws", PASSWORD, true, browser, 10));
        assertEquals(browser, agent.selected());
        assertEquals(IceLiteAgent.CHECKED, check(UFRAG + ":brws", PASSWORD, false, otherPath, 20));
        assertEquals(browser, agent.selected(), "a check without USE-CANDIDATE does not move the selection");
        assertEquals(IceLiteAgent.NOMINATED, check(UFRAG + ":brws", PASSWORD, true, otherPath, 30));
        assertEquals(otherPath, agent.selected());
    }

    @Test
    void shouldAnswerThePreviousCredentialsAfterARestartUntilTheNewOnesNominate()
    {
        assertEquals(IceLiteAgent.NOMINATED, check(UFRAG + ":brws", PASSWORD, true, browser, 0));
        agent.arm(0);
        agent.restart("ReSt", "restartedPasswordOf24Ch");
        assertTrue(agent.isRestarting());
        assertEquals("ReSt", agent.ufrag());
        // RFC 8445 §9: the peer keeps using the selected pair, and its consent checks, until its new checks succeed.
        assertEquals(IceLiteAgent.CHECKED, check(UFRAG + ":brws", PASSWORD, false, browser, 10_000));
        assertEquals(StunResult.VERIFIED, lastResponse().verifyMessageIntegrity(new StunIntegrity(),
            StunCredential.shortTerm(PASSWORD)), "answered under the credential it was signed with");
        assertEquals(IceLiteAgent.CHECKED, check("ReSt:brw2", "restartedPasswordOf24Ch", false, otherPath, 11_000));
        assertEquals(StunResult.VERIFIED, lastResponse().verifyMessageIntegrity(new StunIntegrity(),
            StunCredential.shortTerm("restartedPasswordOf24Ch")));
        assertTrue(agent.isRestarting(), "a check without USE-CANDIDATE completes nothing");
        assertEquals(browser, agent.selected());
        assertEquals(IceLiteAgent.NOMINATED, check(UFRAG + ":brws", PASSWORD, true, browser, 12_000));
        assertTrue(agent.isRestarting(), "a nomination under the previous credentials does not end the restart");
        assertEquals(IceLiteAgent.NOMINATED, check("ReSt:brw2", "restartedPasswordOf24Ch", true, otherPath, 13_000));
        assertEquals(otherPath, agent.selected(), "media follows the pair the new checks nominated");
        assertFalse(agent.isRestarting());
        assertEquals(IceLiteAgent.UNAUTHENTICATED, check(UFRAG + ":brws", PASSWORD, false, browser, 14_000));
        assertFalse(agent.consentExpired(13_000 + CONSENT_MS - 1), "the nominating check refreshed consent");
        assertTrue(agent.consentExpired(13_000 + CONSENT_MS));
    }

    @Test
    void shouldExpireConsentOnceAfterThirtySecondsWithoutAValidCheckOnTheSelectedPair()
    {
        assertFalse(agent.consentExpired(CONSENT_MS * 10), "not armed before the offer/answer completes");
        agent.arm(1_000);
        assertFalse(agent.consentExpired(1_000 + CONSENT_MS - 1));
        assertEquals(IceLiteAgent.NOMINATED, check(UFRAG + ":brws", PASSWORD, true, browser, 20_000));
        assertFalse(agent.consentExpired(20_000 + CONSENT_MS - 1), "the check refreshed consent");
        // Checks on another path, or failing ones, do not keep the selected pair's consent.
        check(UFRAG + ":brws", PASSWORD, false, otherPath, 40_000);
        check(UFRAG + ":brws", "notTheRelayPassword0000", false, browser, 45_000);
        assertTrue(agent.consentExpired(20_000 + CONSENT_MS));
        assertFalse(agent.consentExpired(20_000 + CONSENT_MS + 5_000), "reported once");
        assertEquals(IceLiteAgent.CHECKED, check(UFRAG + ":brws", PASSWORD, false, browser, 60_000));
        assertFalse(agent.consentExpired(60_000 + CONSENT_MS - 1), "a valid check restores consent");
        assertTrue(agent.consentExpired(60_000 + CONSENT_MS));
    }

    @Test
    void shouldReportIceFailureWhenNoCheckEverComes()
    {
        agent.arm(5_000);
        assertFalse(agent.consentExpired(5_000 + CONSENT_MS - 1));
        assertTrue(agent.consentExpired(5_000 + CONSENT_MS));
        assertNull(agent.selected());
    }
}
