package io.sipline.container.factory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.servlet.sip.SipServletRequest;

import io.sipline.container.api.FakeApp;
import io.sipline.container.api.FakeHost;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.TestMessages;
import org.junit.jupiter.api.Test;

/**
 * The header map of {@code B2buaHelper.createRequest(request, true, headerMap)}, made by
 * {@link SipFactoryImpl#copyRequest} (JSR 289 §12.2.1): From and To give
 * the new leg's parties (without the original's tags), Route entries go first, a non-system header replaces the
 * original's, a system header is refused; names match without regard to case.
 */
class B2buaHeaderMapTest
{
    private final FakeHost host = new FakeHost();
    private final SipFactoryImpl factory = new SipFactoryImpl(new FakeApp(), null); // copyRequest picks no shard

    @Test
    void fromAndToOfTheMapAreTheNewLegsParties() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final Map<String, List<String>> map = new LinkedHashMap<>();
        map.put("from", List.of("<sip:carol@chicago.example>"));
        map.put("TO", List.of("<sip:dave@denver.example>"));
        final SipServletRequest out = factory.copyRequest(invite, false, map, true);
        assertEquals("sip:carol@chicago.example", out.getFrom().getURI().toString());
        assertEquals("sip:dave@denver.example", out.getTo().getURI().toString());
        assertNull(out.getTo().getParameter("tag"), "§12.2.1: the new leg's To has no tag yet");
        final String tag = out.getFrom().getParameter("tag");
        assertTrue(null != tag && !tag.isEmpty() && !"1928301774".equals(tag),
            "the new leg's From has a tag of its own");
    }

    @Test
    void anEmptyOrAbsentValueKeepsTheOriginalsParty() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final Map<String, List<String>> map = new LinkedHashMap<>();
        map.put("From", List.of());
        map.put("X-Custom", List.of("three"));
        final SipServletRequest out = factory.copyRequest(invite, false, map, true);
        assertEquals("sip:alice@atlanta.example", out.getFrom().getURI().toString());
        assertEquals("sip:bob@biloxi.example", out.getTo().getURI().toString());
    }

    @Test
    void routesGoFirstAndOtherHeadersReplaceTheOriginals() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final Map<String, List<String>> map = new LinkedHashMap<>();
        map.put("X-Custom", new ArrayList<>(List.of("three", "four")));
        map.put("Route", List.of("<sip:edge.example;lr>"));
        final SipServletRequest out = factory.copyRequest(invite, false, map, true);
        final List<String> custom = new ArrayList<>();
        out.getHeaders("X-Custom").forEachRemaining(custom::add);
        assertEquals(List.of("three", "four"), custom);
        assertEquals("<sip:edge.example;lr>", out.getHeader("Route"));
        assertEquals("lunch and more", out.getHeader("Subject"), "headers the map does not name are copied");
    }

    @Test
    void aMapOfOneEntryIsReadWhateverItsKind() throws Exception
    {
        final Map<String, List<String>> ofOne = Map.of("X-Call-Ref", List.of("call-1"));
        for (final Map<String, List<String>> map : List.of(ofOne, new HashMap<>(ofOne), new LinkedHashMap<>(ofOne)))
        {
            final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
            final SipServletRequest out = factory.copyRequest(invite, false, map, true);
            assertEquals("call-1", out.getHeader("X-Call-Ref"), map.getClass().getName());
            assertEquals("sip:alice@atlanta.example", out.getFrom().getURI().toString());
            assertEquals("one", out.getHeader("X-Custom"));
        }
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletRequest out = factory.copyRequest(invite, false,
            Map.of("to", List.of("<sip:dave@denver.example>")), true);
        assertEquals("sip:dave@denver.example", out.getTo().getURI().toString(), "a one-entry map's To");
        assertEquals("sip:alice@atlanta.example", out.getFrom().getURI().toString());
    }

    @Test
    void aSystemHeaderInTheMapIsRefused()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        assertThrows(IllegalArgumentException.class, () -> factory.copyRequest(invite, false,
            Map.of("Call-ID", List.of("x@y")), true), "§12.2.1: system headers cannot be set by the map");
    }
}
