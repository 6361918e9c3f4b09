package io.sipline.media.stun;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

class StunBindingServerTest
{
    private static final InetSocketAddress CLIENT = new InetSocketAddress("198.51.100.7", 40_000);
    private static final byte[] LOCAL_UFRAG = "LFRG:".getBytes(StandardCharsets.US_ASCII);

    private final StunIntegrity integrity = new StunIntegrity();
    private final StunCredential localPassword = StunCredential.shortTerm("local-ice-password-0123");
    private final StunMessageWriter writer = new StunMessageWriter();
    private final StunMessageFlyweight response = new StunMessageFlyweight();
    private final byte[] buf = new byte[600];
    private byte[] sent;
    private InetSocketAddress sentTo;
    private final StunTransport capture = (b, offset, length, destination) ->
    {
        sent = Arrays.copyOfRange(b, offset, offset + length);
        sentTo = destination;
    };

    /** ICE-style lookup: USERNAME must be "LFRG:" followed by the peer's fragment. */
    private final StunBindingServer.CredentialLookup ice =
        (request, usernameIndex) -> request.valueStartsWith(usernameIndex, LOCAL_UFRAG) ? localPassword : null;

    @Test
    void shouldAnswerAuthenticatedBindingWithIntegrityAndFingerprint()
    {
        final StunBindingServer server = new StunBindingServer(capture, integrity, ice, null);
        final int length = iceRequest("LFRG:RFRG", localPassword, false).length();
        assertEquals(StunBindingServer.RESPONDED, server.onDatagram(buf, 0, length, CLIENT));
        assertEquals(CLIENT, sentTo);
        assertEquals(StunResult.OK, response.wrap(sent, 0, sent.length));
        assertEquals(StunMessageType.BINDING_SUCCESS_RESPONSE, response.messageType());
        assertTrue(response.transactionIdEquals(0x0A0B0C0D, 99L));
        final StunAddress mapped = new StunAddress();
        response.readAddress(response.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS), mapped);
        assertEquals(CLIENT, mapped.toInetSocketAddress());
        assertEquals(StunResult.VERIFIED, response.verifyMessageIntegrity(integrity, localPassword));
        assertEquals(StunResult.VERIFIED, response.verifyFingerprint(integrity));
    }

    @Test
    void shouldAnswerWithSha256WhenTheRequestUsedIt()
    {
        final StunBindingServer server = new StunBindingServer(capture, integrity, ice, null);
        final int length = iceRequest("LFRG:RFRG", localPassword, true).length();
        assertEquals(StunBindingServer.RESPONDED, server.onDatagram(buf, 0, length, CLIENT));
        response.wrap(sent, 0, sent.length);
        assertEquals(-1, response.integrityIndex());
        assertEquals(StunResult.VERIFIED, response.verifyMessageIntegritySha256(integrity, localPassword));
    }

    @Test
    void shouldAnswer401ForUnknownUserOrWrongPassword()
    {
        final StunBindingServer server = new StunBindingServer(capture, integrity, ice, null);
        int length = iceRequest("XXXX:RFRG", localPassword, false).length();
        assertEquals(StunBindingServer.RESPONDED_ERROR, server.onDatagram(buf, 0, length, CLIENT));
        assertError(401);
        assertEquals(-1, response.integrityIndex(), "401 carries no MESSAGE-INTEGRITY");
        assertEquals(StunResult.VERIFIED, response.verifyFingerprint(integrity));

        length = iceRequest("LFRG:RFRG", StunCredential.shortTerm("wrong"), false).length();
        assertEquals(StunBindingServer.RESPONDED_ERROR, server.onDatagram(buf, 0, length, CLIENT));
        assertError(401);
    }

    @Test
    void shouldAnswer400WithoutUsernameOrIntegrity()
    {
        final StunBindingServer server = new StunBindingServer(capture, integrity, ice, null);
        final int length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_REQUEST, 1, 2L)
            .addU32(StunAttributeType.PRIORITY, 1)
            .addFingerprint(integrity)
            .length();
        assertEquals(StunBindingServer.RESPONDED_ERROR, server.onDatagram(buf, 0, length, CLIENT));
        assertError(400);
    }

    @Test
    void shouldAnswer420NamingUnknownAttributes()
    {
        final StunBindingServer server = new StunBindingServer(capture, integrity, null, null);
        final int length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_REQUEST, 1, 2L)
            .addU32(0x7ABC, 1)
            .addU32(0x0019, 1)
            .length();
        assertEquals(StunBindingServer.RESPONDED_ERROR, server.onDatagram(buf, 0, length, CLIENT));
        assertError(420);
        final int list = response.findAttribute(StunAttributeType.UNKNOWN_ATTRIBUTES);
        assertEquals(2, response.unknownAttributesListCount(list));
        assertEquals(0x7ABC, response.unknownAttributesListType(list, 0));
        assertEquals(0x0019, response.unknownAttributesListType(list, 1));
    }

    @Test
    void shouldAnswer400ForMalformedAttributeOrOtherMethod()
    {
        final StunBindingServer server = new StunBindingServer(capture, integrity, null, null);
        final byte[] two = {0, 1};
        int length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_REQUEST, 1, 2L)
            .addBytes(StunAttributeType.PRIORITY, two, 0, 2)
            .length();
        assertEquals(StunBindingServer.RESPONDED_ERROR, server.onDatagram(buf, 0, length, CLIENT));
        assertError(400);
        length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.type(StunMessageType.METHOD_ALLOCATE, StunMessageType.CLASS_REQUEST), 1, 2L)
            .length();
        assertEquals(StunBindingServer.RESPONDED_ERROR, server.onDatagram(buf, 0, length, CLIENT));
        assertError(400);
        assertEquals(StunMessageType.METHOD_ALLOCATE, response.method());
    }

    @Test
    void shouldAnswerPlainStunWithoutCredentialsAndSendSoftware()
    {
        final StunBindingServer server =
            new StunBindingServer(capture, integrity, null, "sipline".getBytes(StandardCharsets.US_ASCII));
        final int length = writer.wrap(buf, 0, buf.length).header(StunMessageType.BINDING_REQUEST, 5, 6L).length();
        assertEquals(StunBindingServer.RESPONDED, server.onDatagram(buf, 0, length, CLIENT));
        response.wrap(sent, 0, sent.length);
        assertEquals("sipline", response.valueAsString(response.findAttribute(StunAttributeType.SOFTWARE)));
        assertEquals(-1, response.fingerprintIndex());
        assertEquals(-1, response.integrityIndex());
    }

    @Test
    void shouldDropGarbageBadFingerprintsAndIgnoreIndications()
    {
        final StunBindingServer server = new StunBindingServer(capture, integrity, null, null);
        assertEquals(StunBindingServer.DROPPED, server.onDatagram(new byte[] {(byte)0x80, 0, 0, 0}, 0, 4, CLIENT));
        int length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_REQUEST, 1, 2L).addFingerprint(integrity).length();
        buf[length - 1] ^= 1;
        assertEquals(StunBindingServer.DROPPED, server.onDatagram(buf, 0, length, CLIENT));
        length = writer.wrap(buf, 0, buf.length).header(StunMessageType.BINDING_INDICATION, 1, 2L).length();
        assertEquals(StunBindingServer.IGNORED, server.onDatagram(buf, 0, length, CLIENT));
        assertEquals(null, sent);
        assertEquals(2, server.dropped());
    }

    @Test
    void shouldCompleteATransactionOverLoopbackSockets() throws IOException
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        try (DatagramChannel serverChannel = DatagramChannel.open();
            DatagramChannel clientChannel = DatagramChannel.open())
        {
            serverChannel.bind(new InetSocketAddress(loopback, 0));
            clientChannel.bind(new InetSocketAddress(loopback, 0));
            final StunTransport serverSend = (b, offset, length, destination) -> sendQuietly(serverChannel, b, offset,
                length, destination);
            final StunTransport clientSend = (b, offset, length, destination) -> sendQuietly(clientChannel, b, offset,
                length, destination);
            final StunBindingServer server = new StunBindingServer(serverSend, integrity, ice, null);
            final StunAddress mapped = new StunAddress();
            final long[] completed = {0};
            final StunClientTransactions client = new StunClientTransactions(clientSend,
                new StunClientTransactions.Listener()
                {
                    @Override
                    public void onResponse(final long token, final StunMessageFlyweight r, final int wrapResult)
                    {
                        assertEquals(StunResult.VERIFIED, r.verifyMessageIntegrity(integrity, localPassword));
                        r.readAddress(r.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS), mapped);
                        completed[0] = token;
                    }

                    @Override
                    public void onTimeout(final long token)
                    {
                        completed[0] = -1;
                    }
                });

            final int length = iceRequest("LFRG:RFRG", localPassword, false).length();
            client.start(buf, 0, length, (InetSocketAddress)serverChannel.getLocalAddress(), false, 77, 0);

            final ByteBuffer in = ByteBuffer.allocate(600);
            final InetSocketAddress from = (InetSocketAddress)serverChannel.receive(in);
            assertEquals(StunBindingServer.RESPONDED, server.onDatagram(in.array(), 0, in.position(), from));

            in.clear();
            clientChannel.receive(in);
            assertTrue(client.onResponse(response, response.wrap(in.array(), 0, in.position())));
            assertEquals(77, completed[0]);
            assertEquals(clientChannel.getLocalAddress(), mapped.toInetSocketAddress());
        }
    }

    private static void sendQuietly(
        final DatagramChannel channel,
        final byte[] b,
        final int offset,
        final int length,
        final InetSocketAddress destination)
    {
        try
        {
            channel.send(ByteBuffer.wrap(b, offset, length), destination);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private StunMessageWriter iceRequest(final String username, final StunCredential key, final boolean sha256)
    {
        writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_REQUEST, 0x0A0B0C0D, 99L)
            .addAscii(StunAttributeType.USERNAME, username)
            .addU32(StunAttributeType.PRIORITY, 0x6E0001FF)
            .addU64(StunAttributeType.ICE_CONTROLLING, 0x1234L)
            .addEmpty(StunAttributeType.USE_CANDIDATE);
        if (sha256)
        {
            writer.addMessageIntegritySha256(integrity, key);
        }
        else
        {
            writer.addMessageIntegrity(integrity, key);
        }
        return writer.addFingerprint(integrity);
    }

    private void assertError(final int code)
    {
        assertEquals(StunResult.OK, response.wrap(sent, 0, sent.length));
        assertEquals(StunMessageType.CLASS_ERROR_RESPONSE, response.messageClass());
        assertEquals(code, response.errorCode(response.findAttribute(StunAttributeType.ERROR_CODE)));
    }
}
