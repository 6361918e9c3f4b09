package io.sipline.bench.fuzz;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * A seeded generator of broken SIP messages for the wire fuzzer. Each {@link #next()} takes a seed message (the RFC
 * 4475 torture messages, the call-flow corpus, and built-in requests of a real call: INVITE with SDP, ACK, BYE,
 * CANCEL, OPTIONS, REGISTER, a 200 response) with a fresh Call-ID and branch, and applies one {@link Kind} of damage.
 * The same seed and seed messages give the same sequence, so a failure found at message N is found again.
 * <p>
 * Not threadsafe; one per sending thread. Returns a new array per message (the fuzzer is a load generator, not a
 * hot path).
 */
public final class SipMutator
{
    /** The damage done to a seed message. */
    public enum Kind
    {
        /** The seed as it is (with a fresh Call-ID): the control. */
        INTACT,
        /** Cut at a random byte. */
        TRUNCATE,
        /** 1 to 16 random bits flipped. */
        BIT_FLIP,
        /** SIP delimiters (CR, LF, colon, comma, quote, angle brackets, NUL...) put in at random places. */
        DELIMITERS,
        /** One header value made 1 to 60 KB long. */
        HUGE_HEADER,
        /** Hundreds to thousands of extra header lines. */
        MANY_HEADERS,
        /** Content-Length negative, huge, not a number, repeated, or off by some bytes. */
        BAD_CONTENT_LENGTH,
        /** Random bytes, sometimes after a plausible start line. */
        GARBAGE,
        /** Random chunks of other seed messages spliced in. */
        SPLICE
    }

    private static final byte[] DELIMS = {'\r', '\n', ':', ';', ',', '"', '<', '>', '\\', ' ', '\t', '=', '[', ']',
        '@', '/', 0, (byte)0xFF, (byte)0xC3, '%', '?'};
    private static final String[] START_LINES = {"INVITE sip:fuzz@127.0.0.1 SIP/2.0\r\n", "SIP/2.0 200 OK\r\n",
        "OPTIONS sip:127.0.0.1 SIP/2.0\r\n", "REGISTER sip:127.0.0.1 SIP/2.0\r\n"};
    private static final String[] LENGTHS = {"-1", "4294967296", "99999999999999999999", "abc", "", "12, 12",
        "0x10", "+5", "65536", " 1 2"};
    private static final Kind[] KINDS = Kind.values();

    private final List<byte[]> seeds;
    private final SplittableRandom random;
    private final String host;
    private long serial;

    /**
     * @param seeds  the seed messages (at least one); borrowed, never modified.
     * @param seed   the random seed.
     * @param host   the address the built-in requests are sent to (their Request-URI host).
     */
    public SipMutator(final List<byte[]> seeds, final long seed, final String host)
    {
        if (seeds.isEmpty())
        {
            throw new IllegalArgumentException("no seed messages");
        }
        this.seeds = List.copyOf(seeds);
        this.random = new SplittableRandom(seed);
        this.host = host;
    }

    /**
     * The built-in call-flow requests and the messages of {@code rfc4475/*.dat} and {@code corpus/*.sip} under
     * {@code resources} when that folder exists (the repository's {@code sip-stack/src/test/resources}).
     */
    public static List<byte[]> seedMessages(final Path resources, final String host) throws IOException
    {
        final List<byte[]> seeds = new ArrayList<>(callFlow(host));
        for (final String folder : new String[] {"rfc4475", "corpus"})
        {
            final Path dir = resources.resolve(folder);
            if (!Files.isDirectory(dir))
            {
                continue;
            }
            try (Stream<Path> files = Files.list(dir))
            {
                for (final Path p : files.sorted().toList())
                {
                    final String name = p.getFileName().toString();
                    if (name.endsWith(".dat") || name.endsWith(".sip"))
                    {
                        seeds.add(Files.readAllBytes(p));
                    }
                }
            }
        }
        return seeds;
    }

    /** Requests and a response of a real call, addressed to {@code host}. */
    public static List<byte[]> callFlow(final String host)
    {
        final String sdp = "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\n"
            + "m=audio 49170 RTP/AVP 0 8 101\r\na=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\n";
        final String common = "Via: SIP/2.0/UDP 192.0.2.1:5062;branch=z9hG4bK-seed;rport\r\nMax-Forwards: 70\r\n"
            + "From: \"Fuzz\" <sip:fuzz@192.0.2.1>;tag=f1\r\nCall-ID: seed@192.0.2.1\r\n"
            + "Contact: <sip:fuzz@192.0.2.1:5062;transport=udp>\r\nUser-Agent: sipline-fuzz\r\n";
        final List<byte[]> flow = new ArrayList<>();
        flow.add(bytes("INVITE sip:service@" + host + " SIP/2.0\r\n" + common + "To: <sip:service@" + host + ">\r\n"
            + "CSeq: 1 INVITE\r\nAllow: INVITE, ACK, CANCEL, BYE, OPTIONS\r\nSupported: timer, 100rel\r\n"
            + "Session-Expires: 1800;refresher=uac\r\nContent-Type: application/sdp\r\nContent-Length: "
            + sdp.length() + "\r\n\r\n" + sdp));
        flow.add(bytes("ACK sip:service@" + host + " SIP/2.0\r\n" + common + "To: <sip:service@" + host
            + ">;tag=t1\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n"));
        flow.add(bytes("BYE sip:service@" + host + " SIP/2.0\r\n" + common + "To: <sip:service@" + host
            + ">;tag=t1\r\nCSeq: 2 BYE\r\nRoute: <sip:" + host + ";lr>\r\nContent-Length: 0\r\n\r\n"));
        flow.add(bytes("CANCEL sip:service@" + host + " SIP/2.0\r\n" + common + "To: <sip:service@" + host
            + ">\r\nCSeq: 1 CANCEL\r\nContent-Length: 0\r\n\r\n"));
        flow.add(bytes("OPTIONS sip:" + host + " SIP/2.0\r\n" + common + "To: <sip:" + host
            + ">\r\nCSeq: 7 OPTIONS\r\nAccept: application/sdp\r\nContent-Length: 0\r\n\r\n"));
        flow.add(bytes("REGISTER sip:" + host + " SIP/2.0\r\n" + common + "To: <sip:fuzz@" + host
            + ">\r\nCSeq: 3 REGISTER\r\nExpires: 3600\r\nAuthorization: Digest username=\"fuzz\", realm=\"" + host
            + "\", nonce=\"abc\", uri=\"sip:" + host + "\", response=\"0123456789abcdef0123456789abcdef\", "
            + "qop=auth, nc=00000001, cnonce=\"x\"\r\nContent-Length: 0\r\n\r\n"));
        flow.add(bytes("SIP/2.0 200 OK\r\n" + common.replace("Contact", "Record-Route: <sip:192.0.2.9;lr>\r\nContact")
            + "To: <sip:service@" + host + ">;tag=t1\r\nCSeq: 1 INVITE\r\nContent-Type: application/sdp\r\n"
            + "Content-Length: " + sdp.length() + "\r\n\r\n" + sdp));
        return flow;
    }

    /** @return the kind of the next message (drawn before it is made, so the caller can count by kind). */
    public Kind nextKind()
    {
        return KINDS[random.nextInt(KINDS.length)];
    }

    /** @return a new broken message of a random kind. */
    public byte[] next()
    {
        return next(nextKind());
    }

    /**
     * @param kind the damage to do.
     * @return a new message.
     */
    public byte[] next(final Kind kind)
    {
        final byte[] seed = fresh(seeds.get(random.nextInt(seeds.size())));
        return switch (kind)
        {
            case INTACT -> seed;
            case TRUNCATE -> Arrays.copyOf(seed, random.nextInt(Math.max(1, seed.length)));
            case BIT_FLIP -> bitFlip(seed);
            case DELIMITERS -> delimiters(seed);
            case HUGE_HEADER -> hugeHeader(seed);
            case MANY_HEADERS -> manyHeaders(seed);
            case BAD_CONTENT_LENGTH -> badContentLength(seed);
            case GARBAGE -> garbage();
            case SPLICE -> splice(seed);
        };
    }

    /** A new Call-ID and Via branch in each message, so that mutants are new transactions, not retransmissions. */
    private byte[] fresh(final byte[] seed)
    {
        final long n = ++serial;
        final String text = new String(seed, StandardCharsets.ISO_8859_1)
            .replace("seed@192.0.2.1", "fz" + n + "-" + Long.toHexString(random.nextLong()) + "@192.0.2.1")
            .replace("z9hG4bK-seed", "z9hG4bK-fz" + n);
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private byte[] bitFlip(final byte[] b)
    {
        final int flips = 1 + random.nextInt(16);
        for (int i = 0; i < flips && b.length > 0; i++)
        {
            b[random.nextInt(b.length)] ^= (byte)(1 << random.nextInt(8));
        }
        return b;
    }

    private byte[] delimiters(final byte[] seed)
    {
        byte[] b = seed;
        final int n = 1 + random.nextInt(6);
        for (int i = 0; i < n; i++)
        {
            final int at = random.nextInt(b.length + 1);
            final byte[] c = new byte[b.length + 1];
            System.arraycopy(b, 0, c, 0, at);
            c[at] = DELIMS[random.nextInt(DELIMS.length)];
            System.arraycopy(b, at, c, at + 1, b.length - at);
            b = c;
        }
        return b;
    }

    private byte[] hugeHeader(final byte[] seed)
    {
        final int size = 1024 + random.nextInt(60 * 1024);
        final String name = switch (random.nextInt(5))
        {
            case 0 -> "Via: SIP/2.0/UDP 192.0.2.1;branch=z9hG4bK";
            case 1 -> "Subject: ";
            case 2 -> "To: <sip:";
            case 3 -> "X-" + "H".repeat(1 + random.nextInt(200)) + ": ";
            default -> "Contact: <sip:a@b>;p=";
        };
        final byte[] value = new byte[size];
        for (int i = 0; i < size; i++)
        {
            value[i] = (byte)('a' + random.nextInt(26));
        }
        return insertAfterStartLine(seed, concat(bytes(name), value, bytes("\r\n")));
    }

    private byte[] manyHeaders(final byte[] seed)
    {
        final int n = 200 + random.nextInt(3000);
        final StringBuilder sb = new StringBuilder(n * 16);
        final String[] names = {"Via: SIP/2.0/UDP 192.0.2.", "Route: <sip:192.0.2.", "X-F", "Supported: t", "k: a"};
        final String name = names[random.nextInt(names.length)];
        for (int i = 0; i < n; i++)
        {
            sb.append(name).append(i).append(name.endsWith("X-F") ? ": v" : "").append(name.startsWith("Route") ?
                ";lr>" : "").append("\r\n");
        }
        return insertAfterStartLine(seed, bytes(sb.toString()));
    }

    private byte[] badContentLength(final byte[] seed)
    {
        final String text = new String(seed, StandardCharsets.ISO_8859_1);
        final String value = random.nextInt(3) == 0 ?
            Integer.toString(Math.max(0, bodyLength(text) + random.nextInt(-200, 200))) :
            LENGTHS[random.nextInt(LENGTHS.length)];
        final String replaced = text.replaceFirst("(?im)^(Content-Length|l)[ \\t]*:[^\\r\\n]*",
            "Content-Length: " + value);
        final String out = replaced.equals(text) ?
            text.replaceFirst("\r\n", "\r\nContent-Length: " + value + "\r\n") : replaced;
        return out.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static int bodyLength(final String text)
    {
        final int end = text.indexOf("\r\n\r\n");
        return end < 0 ? 0 : text.length() - end - 4;
    }

    private byte[] garbage()
    {
        final byte[] b = new byte[random.nextInt(1, 1500)];
        for (int i = 0; i < b.length; i++)
        {
            b[i] = (byte)random.nextInt(256);
        }
        if (random.nextBoolean())
        {
            return concat(bytes(START_LINES[random.nextInt(START_LINES.length)]), b);
        }
        return b;
    }

    private byte[] splice(final byte[] seed)
    {
        final byte[] other = seeds.get(random.nextInt(seeds.size()));
        final int cut = random.nextInt(seed.length + 1);
        final int from = random.nextInt(other.length + 1);
        final int len = random.nextInt(other.length - from + 1);
        return concat(Arrays.copyOf(seed, cut), Arrays.copyOfRange(other, from, from + len),
            Arrays.copyOfRange(seed, cut, seed.length));
    }

    private static byte[] insertAfterStartLine(final byte[] seed, final byte[] lines)
    {
        int at = 0;
        while (at + 1 < seed.length && !(seed[at] == '\r' && seed[at + 1] == '\n'))
        {
            at++;
        }
        at = Math.min(seed.length, at + 2);
        return concat(Arrays.copyOf(seed, at), lines, Arrays.copyOfRange(seed, at, seed.length));
    }

    private static byte[] concat(final byte[]... parts)
    {
        int n = 0;
        for (final byte[] p : parts)
        {
            n += p.length;
        }
        final byte[] out = new byte[n];
        int at = 0;
        for (final byte[] p : parts)
        {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
