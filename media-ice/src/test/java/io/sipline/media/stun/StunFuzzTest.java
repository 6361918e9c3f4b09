package io.sipline.media.stun;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sipline.media.ice.MediaDemux;
import io.sipline.media.turn.TurnChannelData;

/**
 * Coverage-guided fuzzing of what a media socket does with a datagram: classify it ({@link MediaDemux}), and for
 * STUN frame it ({@link StunMessageFlyweight}, heap and direct), read every attribute, verify integrity and
 * fingerprint, and answer it as an ICE Binding server ({@link StunBindingServer} with short-term credentials).
 * Without {@code JAZZER_FUZZ} it runs the seeds in {@code StunFuzzTestInputs/datagram/} (the RFC 5769 vectors and
 * any crash found) as regression tests.
 * <p>
 * Property: no datagram throws; the server's answer is one of its four outcomes and fits its response capacity.
 */
class StunFuzzTest
{
    private static final InetSocketAddress PEER = new InetSocketAddress("192.0.2.7", 40_000);
    private static final byte[] LOCAL_UFRAG = "evtj".getBytes(StandardCharsets.US_ASCII);

    private final StunMessageFlyweight message = new StunMessageFlyweight();
    private final StunMessageFlyweight directMessage = new StunMessageFlyweight();
    private final StunIntegrity integrity = new StunIntegrity();
    private final StunCredential credential = StunCredential.shortTerm(StunTestVectors.SHORT_TERM_PASSWORD);
    private final StunAddress address = new StunAddress();
    private final ByteBuffer direct = ByteBuffer.allocateDirect(2048);
    private final int[] sentLength = {-1};
    private final StunBindingServer server = new StunBindingServer((b, offset, length, to) -> sentLength[0] = length,
        integrity, (request, usernameIndex) -> request.valueStartsWith(usernameIndex, LOCAL_UFRAG) ? credential : null,
        "sipline".getBytes(StandardCharsets.US_ASCII));

    @FuzzTest(maxDuration = "60s")
    void datagram(final byte[] input)
    {
        final int kind = MediaDemux.classify(input, 0, input.length);
        if (input.length >= MediaDemux.RTP_HEADER)
        {
            MediaDemux.ssrc(kind, input, 0);
        }
        if (TurnChannelData.looksLikeChannelData(input, 0, input.length))
        {
            TurnChannelData.channel(input, 0, input.length);
        }
        read(message, message.wrap(input, 0, input.length));
        if (input.length <= direct.capacity())
        {
            direct.clear();
            direct.put(0, input, 0, input.length);
            read(directMessage, directMessage.wrap(direct, 0, input.length));
        }
        sentLength[0] = -1;
        final int outcome = server.onDatagram(input, 0, input.length, PEER);
        assertTrue(outcome >= StunBindingServer.RESPONDED && outcome <= StunBindingServer.DROPPED);
        assertTrue(sentLength[0] <= StunBindingServer.RESPONSE_CAPACITY, "the answer fits its buffer");
    }

    private void read(final StunMessageFlyweight m, final int result)
    {
        if (result < 0)
        {
            return;
        }
        m.messageType();
        m.transactionIdHigh();
        m.transactionIdLow();
        m.firstMalformedAttribute();
        m.validateKnownAttributes();
        for (int i = 0; i < m.attributeCount(); i++)
        {
            m.attributeType(i);
            m.attributePaddedLength(i);
            m.readAddress(i, address);
            m.u32Value(i);
            m.u64Value(i);
            m.errorCode(i);
            m.errorReasonLength(i);
            m.passwordAlgorithm(i);
            for (int k = 0; k < m.passwordAlgorithmsCount(i); k++)
            {
                m.passwordAlgorithmsAt(i, k);
            }
            for (int k = 0; k < m.unknownAttributesListCount(i); k++)
            {
                m.unknownAttributesListType(i, k);
            }
            m.valueAsString(i);
        }
        for (int k = 0; k < m.unknownAttributeCount(); k++)
        {
            m.unknownAttributeType(k);
        }
        m.priority();
        m.useCandidate();
        m.verifyIntegrity(integrity, credential);
        m.verifyFingerprint(integrity);
    }
}
