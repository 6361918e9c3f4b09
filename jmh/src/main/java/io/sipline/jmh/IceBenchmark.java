package io.sipline.jmh;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.sipline.media.ice.IceAgent;
import io.sipline.media.ice.IceContext;
import io.sipline.media.ice.IceLimits;
import io.sipline.media.ice.IceParseException;
import io.sipline.media.ice.MediaDemux;
import io.sipline.media.ssrc.SsrcIndex;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * No per-packet allocation once connected, measured with {@code -prof gc} on an established ICE session: two agents
 * (full, controlling and controlled, one component, RTCP-mux) complete their checks over an in-memory loopback in
 * setup; then every invocation offers agent A one datagram on its selected pair, as its media thread would after
 * reading it from the socket: a consent check ({@link #consentCheck()}) or an RTP packet ({@link #demuxRtp()}). The
 * baselines ({@link #naiveConsentCheck()}, {@link #naiveDemuxRtp()}) do the same work on the same bytes in the same
 * run as straightforward {@code java.nio} code does it.
 *
 * <pre>
 * java -jar jmh/target/benchmarks.jar IceBenchmark -f 2 -wi 3 -w 1 -i 5 -r 1 -prof gc
 * </pre>
 *
 * <p>Not threadsafe; the benchmark thread owns both agents, as a media shard owns its sessions.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "--add-modules=jdk.incubator.vector"})
@State(Scope.Thread)
public class IceBenchmark
{
    private static final InetSocketAddress A_ADDRESS = new InetSocketAddress("192.0.2.1", 1000);
    private static final InetSocketAddress B_ADDRESS = new InetSocketAddress("192.0.2.2", 2000);
    private static final int AUDIO_SSRC = 0x1A2B_3C4D;
    private static final int VIDEO_SSRC = 0x5E6F_7A8B;
    private static final int RTP_PAYLOAD = 160;

    private IceAgent a;
    private InetSocketAddress from;
    private long now;
    private boolean connected;
    /** What agent A sent once connected (its consent answers): octets, so the JIT cannot drop the send. */
    private long sentOctets;

    private final byte[] consent = new byte[200];
    private int consentLength;
    private final byte[][] rtp = new byte[2][];
    private int turn;

    /** The owner's side of data: the streams of the session by SSRC, and what they counted. */
    private final SsrcIndex<Stream> streams = new SsrcIndex<>(4);
    private long demuxed;

    private final Naive naive = new Naive();

    /** One RTP stream of the session, as the owner keeps it. */
    static final class Stream
    {
        final int ssrc;
        long packets;
        long octets;

        Stream(final int ssrc)
        {
            this.ssrc = ssrc;
        }
    }

    /**
     * Connects the two agents, then builds the consent request agent B would send and two RTP packets.
     *
     * @throws IceParseException never (our own SDP).
     */
    @Setup
    public void setUp() throws IceParseException
    {
        final IceContext context = new IceContext();
        final ArrayDeque<Object[]> wire = new ArrayDeque<>();
        final IceAgent[] agents = new IceAgent[2];
        a = new IceAgent(context, IceLimits.PJNATH, 1, false, true,
            (socket, buf, off, len, to) ->
            {
                if (connected)
                {
                    sentOctets += len;
                }
                else
                {
                    wire.add(new Object[] {1, A_ADDRESS, Arrays.copyOfRange(buf, off, off + len)});
                }
            }, new IceAgent.Listener()
            {
                @Override
                public void onData(final IceAgent agent, final int component, final byte[] buf, final int offset,
                    final int length)
                {
                    onMedia(buf, offset, length);
                }
            });
        final IceAgent b = new IceAgent(context, IceLimits.PJNATH, 1, false, false,
            (socket, buf, off, len, to) ->
                wire.add(new Object[] {0, B_ADDRESS, Arrays.copyOfRange(buf, off, off + len)}),
            new IceAgent.Listener()
            {
            });
        agents[0] = a;
        agents[1] = b;
        a.addHostCandidate(1, 0, A_ADDRESS);
        b.addHostCandidate(1, 0, B_ADDRESS);
        b.applyRemoteDescription(a.localDescription(), 0);
        a.applyRemoteDescription(b.localDescription(), 0);
        for (int step = 0; step < 10_000 && !(IceAgent.STATE_COMPLETED == a.state()
            && IceAgent.STATE_COMPLETED == b.state()); step++)
        {
            now += 5;
            for (int n = wire.size(); n > 0; n--)
            {
                final Object[] datagram = wire.poll();
                final byte[] bytes = (byte[])datagram[2];
                agents[(Integer)datagram[0]].onDatagram(0, bytes, 0, bytes.length, (InetSocketAddress)datagram[1],
                    now);
            }
            a.poll(now);
            b.poll(now);
        }
        if (IceAgent.STATE_COMPLETED != a.state() || IceAgent.STATE_COMPLETED != b.state())
        {
            throw new IllegalStateException("ICE did not complete: " + a.state() + ", " + b.state());
        }
        connected = true;
        from = a.selectedRemote(1);

        final StunIntegrity integrity = new StunIntegrity();
        consentLength = new StunMessageWriter().wrap(consent, 0, consent.length)
            .header(StunMessageType.BINDING_REQUEST, 0x0102_0304, 0x0506_0708_090A_0B0CL)
            .addAscii(StunAttributeType.USERNAME, a.localUfrag() + ":" + b.localUfrag())
            .addU32(StunAttributeType.PRIORITY, 0x6E00_01FF)
            .addU64(StunAttributeType.ICE_CONTROLLED, 0x1234L)
            .addMessageIntegrity(integrity, StunCredential.shortTerm(a.localPassword()))
            .addFingerprint(integrity)
            .length();
        rtp[0] = rtpPacket(AUDIO_SSRC, 0);
        rtp[1] = rtpPacket(VIDEO_SSRC, 96);
        streams.add(AUDIO_SSRC, new Stream(AUDIO_SSRC));
        streams.add(VIDEO_SSRC, new Stream(VIDEO_SSRC));
        naive.setUp(a.localUfrag(), a.localPassword(), from, AUDIO_SSRC, VIDEO_SSRC);
        verify();
    }

    private void verify()
    {
        final long answered = a.checksAnswered();
        final long sent = sentOctets;
        consentCheck();
        if (a.checksAnswered() != answered + 1 || sentOctets == sent)
        {
            throw new IllegalStateException("the consent check was not answered");
        }
        final long before = demuxed;
        demuxRtp();
        demuxRtp();
        if (demuxed != before + 2 || streams.get(AUDIO_SSRC).packets != 1 || streams.get(VIDEO_SSRC).packets != 1)
        {
            throw new IllegalStateException("RTP was not demultiplexed to its streams");
        }
        final int response = naive.consent(consent, consentLength, from);
        if (response <= 0 || 2 != naive.demux(rtp[0], from) + naive.demux(rtp[1], from))
        {
            throw new IllegalStateException("the baseline disagrees: " + response);
        }
    }

    private static byte[] rtpPacket(final int ssrc, final int payloadType)
    {
        final byte[] packet = new byte[MediaDemux.RTP_HEADER + RTP_PAYLOAD];
        packet[0] = (byte)0x80;
        packet[1] = (byte)payloadType;
        packet[8] = (byte)(ssrc >>> 24);
        packet[9] = (byte)(ssrc >>> 16);
        packet[10] = (byte)(ssrc >>> 8);
        packet[11] = (byte)ssrc;
        return packet;
    }

    /** The owner's {@code onData}: RFC 7983 first-octet rule, then the stream by SSRC. */
    private void onMedia(final byte[] buf, final int offset, final int length)
    {
        final int kind = MediaDemux.classify(buf, offset, length);
        if (MediaDemux.RTP == kind || MediaDemux.RTCP == kind)
        {
            final Stream stream = streams.get(MediaDemux.ssrc(kind, buf, offset));
            if (null != stream)
            {
                stream.packets++;
                stream.octets += length;
                demuxed++;
            }
        }
    }

    /**
     * A consent check received and answered by the agent: a consent-freshness Binding request (RFC 7675 §5.1:
     * USERNAME, PRIORITY, ICE-CONTROLLED, MESSAGE-INTEGRITY, FINGERPRINT) received, verified and answered (success
     * response with XOR-MAPPED-ADDRESS, MESSAGE-INTEGRITY and FINGERPRINT handed to the transport).
     *
     * @return octets sent so far (the answers).
     */
    @Benchmark
    public long consentCheck()
    {
        a.onDatagram(0, consent, 0, consentLength, from, now);
        return sentOctets;
    }

    /**
     * An RTP packet (audio and video alternately) received on the connected 5-tuple and demultiplexed to its
     * stream: the agent tells it from STUN, the owner's {@code onData} classifies it by its first octet
     * ({@link MediaDemux}, RFC 7983 §7: RTP, not STUN, DTLS or TURN) and finds its stream by SSRC in an
     * {@link SsrcIndex} (two streams: audio and video bundled).
     *
     * @return packets demultiplexed so far.
     */
    @Benchmark
    public long demuxRtp()
    {
        final byte[] packet = rtp[turn ^= 1];
        a.onDatagram(0, packet, 0, packet.length, from, now);
        return demuxed;
    }

    /**
     * Baseline: the consent check answered by straightforward {@code java.nio} code: a {@code ByteBuffer} per
     * datagram, the connection found in a {@code HashMap<InetSocketAddress, …>}, {@code Mac.getInstance}/{@code new
     * SecretKeySpec}/{@code new CRC32} per message, the USERNAME as a {@code String}, the response built in a new
     * {@code ByteBuffer}.
     *
     * @return the response length.
     */
    @Benchmark
    public int naiveConsentCheck()
    {
        return naive.consent(consent, consentLength, from);
    }

    /**
     * Baseline: the RTP packet demultiplexed by straightforward code: a {@code ByteBuffer} per datagram, the
     * connection found in a {@code HashMap<InetSocketAddress, …>}, the stream in a {@code HashMap<Integer, …>} (the
     * SSRC boxed).
     *
     * @return 1 when the packet found its stream.
     */
    @Benchmark
    public int naiveDemuxRtp()
    {
        return naive.demux(rtp[turn ^= 1], from);
    }

    /**
     * What a straightforward {@code java.nio} media socket handler does with the same datagrams: the session found by
     * the sender's address in a {@code HashMap}, a {@code ByteBuffer} view per datagram, the first octet switched on
     * (RFC 7983), RTP streams in a {@code HashMap<Integer, …>}; STUN parsed by walking the attributes, the USERNAME
     * turned into a {@code String} and compared, MESSAGE-INTEGRITY checked with a {@code Mac} made for the message
     * (RFC 8489 §14.5: over a copy with the length patched), FINGERPRINT with a new {@code CRC32}, and the success
     * response (XOR-MAPPED-ADDRESS, MESSAGE-INTEGRITY, FINGERPRINT) written into a new heap {@code ByteBuffer}.
     */
    static final class Naive
    {
        private static final int MAGIC_COOKIE = 0x2112_A442;
        private static final int FINGERPRINT_XOR = 0x5354_554E;

        private final Map<InetSocketAddress, Session> sessions = new HashMap<>();

        /** The baseline's per-peer state. */
        static final class Session
        {
            final String localUfrag;
            final byte[] password;
            final Map<Integer, Stream> streams = new HashMap<>();
            long answered;
            long packets;

            Session(final String localUfrag, final String password)
            {
                this.localUfrag = localUfrag;
                this.password = password.getBytes(StandardCharsets.UTF_8);
            }
        }

        void setUp(final String ufrag, final String password, final InetSocketAddress peer, final int... ssrcs)
        {
            final Session session = new Session(ufrag, password);
            for (final int ssrc : ssrcs)
            {
                session.streams.put(ssrc, new Stream(ssrc));
            }
            sessions.put(peer, session);
        }

        int demux(final byte[] datagram, final InetSocketAddress peer)
        {
            final Session session = sessions.get(peer);
            if (null == session)
            {
                return 0;
            }
            final ByteBuffer buffer = ByteBuffer.wrap(datagram);
            final int first = buffer.get(0) & 0xFF;
            if (first >= 128 && first <= 191 && buffer.remaining() >= MediaDemux.RTP_HEADER)
            {
                final Stream stream = session.streams.get(buffer.getInt(8));
                if (null != stream)
                {
                    stream.packets++;
                    stream.octets += buffer.remaining();
                    session.packets++;
                    return 1;
                }
            }
            return 0;
        }

        int consent(final byte[] datagram, final int length, final InetSocketAddress peer)
        {
            final Session session = sessions.get(peer);
            if (null == session)
            {
                return -1;
            }
            final ByteBuffer request = ByteBuffer.wrap(datagram, 0, length);
            if ((request.get(0) & 0xC0) != 0 || request.getInt(4) != MAGIC_COOKIE || request.getShort(0) != 0x0001)
            {
                return -2;
            }
            String username = null;
            int integrityAt = -1;
            int fingerprintAt = -1;
            for (int pos = 20; pos + 4 <= length; )
            {
                final int type = request.getShort(pos) & 0xFFFF;
                final int len = request.getShort(pos + 2) & 0xFFFF;
                if (StunAttributeType.USERNAME == type)
                {
                    username = new String(datagram, pos + 4, len, StandardCharsets.UTF_8);
                }
                else if (StunAttributeType.MESSAGE_INTEGRITY == type)
                {
                    integrityAt = pos;
                }
                else if (StunAttributeType.FINGERPRINT == type)
                {
                    fingerprintAt = pos;
                }
                pos += 4 + ((len + 3) & ~3);
            }
            if (null == username || integrityAt < 0 || fingerprintAt < 0
                || !username.startsWith(session.localUfrag + ":"))
            {
                return -3;
            }
            final CRC32 crc = new CRC32();
            crc.update(datagram, 0, fingerprintAt);
            if (((int)crc.getValue() ^ FINGERPRINT_XOR) != request.getInt(fingerprintAt + 4))
            {
                return -4;
            }
            try
            {
                final byte[] signed = Arrays.copyOf(datagram, integrityAt);
                final int adjusted = integrityAt + 24 - 20;
                signed[2] = (byte)(adjusted >>> 8);
                signed[3] = (byte)adjusted;
                final Mac mac = Mac.getInstance("HmacSHA1");
                mac.init(new SecretKeySpec(session.password, "HmacSHA1"));
                if (!MessageDigest.isEqual(mac.doFinal(signed),
                    Arrays.copyOfRange(datagram, integrityAt + 4, integrityAt + 24)))
                {
                    return -5;
                }
                // Success response: header, XOR-MAPPED-ADDRESS (IPv4), MESSAGE-INTEGRITY, FINGERPRINT.
                final ByteBuffer response = ByteBuffer.allocate(20 + 12 + 24 + 8);
                response.putShort((short)0x0101).putShort((short)0).putInt(MAGIC_COOKIE);
                response.put(datagram, 8, 12);
                final byte[] address = peer.getAddress().getAddress();
                response.putShort((short)StunAttributeType.XOR_MAPPED_ADDRESS).putShort((short)8)
                    .put((byte)0).put((byte)1).putShort((short)(peer.getPort() ^ (MAGIC_COOKIE >>> 16)))
                    .putInt(((address[0] & 0xFF) << 24 | (address[1] & 0xFF) << 16 | (address[2] & 0xFF) << 8
                        | (address[3] & 0xFF)) ^ MAGIC_COOKIE);
                response.putShort(2, (short)(response.position() + 24 - 20));
                mac.init(new SecretKeySpec(session.password, "HmacSHA1"));
                mac.update(response.array(), 0, response.position());
                response.putShort((short)StunAttributeType.MESSAGE_INTEGRITY).putShort((short)20).put(mac.doFinal());
                response.putShort(2, (short)(response.position() + 8 - 20));
                final CRC32 out = new CRC32();
                out.update(response.array(), 0, response.position());
                response.putShort((short)StunAttributeType.FINGERPRINT).putShort((short)4)
                    .putInt((int)out.getValue() ^ FINGERPRINT_XOR);
                session.answered++;
                return response.position();
            }
            catch (final GeneralSecurityException ex)
            {
                throw new IllegalStateException(ex);
            }
        }
    }
}
