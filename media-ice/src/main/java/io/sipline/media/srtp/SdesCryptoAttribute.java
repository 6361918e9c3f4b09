package io.sipline.media.srtp;

import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * An SDP security-descriptions attribute (RFC 4568 §4, grammar §9.1):
 * <pre>
 *   a=crypto:&lt;tag&gt; &lt;crypto-suite&gt; &lt;key-params&gt; [&lt;session-params&gt;]
 *
 *   key-params  = key-param *(";" key-param)
 *   key-param   = "inline:" key-salt ["|" lifetime] ["|" mki-value ":" mki-length]     (§6.1)
 *   key-salt    = base64(master key || master salt)
 *   lifetime    = ["2^"] 1*DIGIT                                                       (packets)
 *   mki-length  = 1..128                                                               (octets)
 *
 *   a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4 KDR=1
 * </pre>
 * Session parameters understood: {@code KDR=n} (rate 2^n, §6.3.1; {@code KDR=0} is taken as rate 0, no
 * re-keying) and {@code WSH=n} (window size hint, §6.3.7); the others are kept as text ({@link #sessionParams()}).
 *
 * <p>Parsed once at offer/answer time, so it may allocate and reports malformed input with
 * {@link IllegalArgumentException} saying what is wrong. Immutable; thread-safe.
 */
public final class SdesCryptoAttribute
{
    private static final int MAX_KEYS = 16;

    private final int tag;
    private final SrtpCryptoSuite suite;
    private final byte[][] keys;
    private final long[] lifetimes;
    private final byte[][] mkis;
    private final int keyDerivationRate;
    private final int windowSizeHint;
    private final List<String> sessionParams;

    private SdesCryptoAttribute(
        final int tag,
        final SrtpCryptoSuite suite,
        final byte[][] keys,
        final long[] lifetimes,
        final byte[][] mkis,
        final int keyDerivationRate,
        final int windowSizeHint,
        final List<String> sessionParams)
    {
        this.tag = tag;
        this.suite = suite;
        this.keys = keys;
        this.lifetimes = lifetimes;
        this.mkis = mkis;
        this.keyDerivationRate = keyDerivationRate;
        this.windowSizeHint = windowSizeHint;
        this.sessionParams = sessionParams;
    }

    /**
     * Parses the attribute value, with or without a leading {@code a=crypto:} or {@code crypto:}.
     *
     * @param attribute for example {@code "1 AES_CM_128_HMAC_SHA1_80 inline:...|2^31|1:4"}.
     * @return the attribute.
     * @throws IllegalArgumentException naming what is malformed or unsupported.
     */
    public static SdesCryptoAttribute parse(final CharSequence attribute)
    {
        if (null == attribute)
        {
            throw new IllegalArgumentException("crypto attribute is null");
        }
        String text = attribute.toString().strip();
        if (text.startsWith("a="))
        {
            text = text.substring(2);
        }
        if (text.startsWith("crypto:"))
        {
            text = text.substring("crypto:".length());
        }
        final String[] fields = text.split("[ \t]+");
        if (fields.length < 3)
        {
            throw new IllegalArgumentException("crypto attribute needs <tag> <crypto-suite> <key-params>: '" +
                text + "'");
        }
        final int tag = parseTag(fields[0]);
        final SrtpCryptoSuite suite = SrtpCryptoSuite.fromSdpName(fields[1]);
        if (null == suite)
        {
            throw new IllegalArgumentException("unsupported crypto-suite '" + fields[1] + "'");
        }

        final String[] params = fields[2].split(";", -1);
        if (params.length > MAX_KEYS)
        {
            throw new IllegalArgumentException("more than " + MAX_KEYS + " key-params");
        }
        final byte[][] keys = new byte[params.length][];
        final long[] lifetimes = new long[params.length];
        final byte[][] mkis = new byte[params.length][];
        for (int i = 0; i < params.length; i++)
        {
            parseKeyParam(suite, params[i], i, keys, lifetimes, mkis);
        }
        for (int i = 1; i < params.length; i++)
        {
            if ((null == mkis[0]) != (null == mkis[i]) || (null != mkis[0] && mkis[0].length != mkis[i].length))
            {
                // RFC 4568 §6.1: with several keys, each has an MKI, all of one length.
                throw new IllegalArgumentException("several key-params need MKIs of one length");
            }
        }
        if (params.length > 1 && null == mkis[0])
        {
            throw new IllegalArgumentException("several key-params need MKIs of one length");
        }

        int kdr = 0;
        int wsh = -1;
        final List<String> session = new ArrayList<>();
        for (int i = 3; i < fields.length; i++)
        {
            final String param = fields[i];
            session.add(param);
            if (param.startsWith("KDR="))
            {
                // 2^n for n in 1..24; KDR=0 is read as "never re-derive" (rate 0), not as re-keying every packet.
                final int n = parseDecimal(param.substring(4), "KDR", 24);
                kdr = 0 == n ? 0 : 1 << n;
            }
            else if (param.startsWith("WSH="))
            {
                wsh = parseDecimal(param.substring(4), "WSH", Integer.MAX_VALUE);
                if (wsh < 64)
                {
                    throw new IllegalArgumentException("WSH must be at least 64: " + wsh);
                }
            }
        }
        return new SdesCryptoAttribute(tag, suite, keys, lifetimes, mkis, kdr, wsh, List.copyOf(session));
    }

    /**
     * A fresh attribute with a random key, for an offer.
     *
     * @param tag    the attribute tag, 1 to 999999999.
     * @param suite  the crypto suite.
     * @param random source of key material.
     * @return the attribute.
     */
    public static SdesCryptoAttribute generate(final int tag, final SrtpCryptoSuite suite, final SecureRandom random)
    {
        final byte[] key = new byte[suite.masterKeySaltLength()];
        random.nextBytes(key);
        return new SdesCryptoAttribute(
            tag, suite, new byte[][] {key}, new long[] {0}, new byte[][] {null}, 0, -1, List.of());
    }

    /** @return the attribute tag. */
    public int tag()
    {
        return tag;
    }

    /** @return the crypto suite. */
    public SrtpCryptoSuite suite()
    {
        return suite;
    }

    /** @return number of {@code inline:} keys (1 unless MKIs select among several). */
    public int keyCount()
    {
        return keys.length;
    }

    /**
     * Master key of the {@code i}th key-param.
     *
     * @param i key index.
     * @return a copy of the master key.
     */
    public byte[] masterKey(final int i)
    {
        return java.util.Arrays.copyOfRange(keys[i], 0, suite.keyLength());
    }

    /**
     * Master salt of the {@code i}th key-param.
     *
     * @param i key index.
     * @return a copy of the master salt.
     */
    public byte[] masterSalt(final int i)
    {
        return java.util.Arrays.copyOfRange(keys[i], suite.keyLength(), suite.masterKeySaltLength());
    }

    /**
     * Lifetime of the {@code i}th key in packets.
     *
     * @param i key index.
     * @return the lifetime, or 0 when absent.
     */
    public long lifetime(final int i)
    {
        return lifetimes[i];
    }

    /**
     * MKI of the {@code i}th key, big-endian in {@code mki-length} octets.
     *
     * @param i key index.
     * @return a copy, or null when absent.
     */
    public byte[] mki(final int i)
    {
        return null == mkis[i] ? null : mkis[i].clone();
    }

    /** @return the key derivation rate from {@code KDR=n}: 2^n, or 0 when absent. */
    public int keyDerivationRate()
    {
        return keyDerivationRate;
    }

    /** @return the {@code WSH} window size hint, or -1 when absent. */
    public int windowSizeHint()
    {
        return windowSizeHint;
    }

    /** @return the session parameters as written, in order. */
    public List<String> sessionParams()
    {
        return sessionParams;
    }

    /**
     * Writes the attribute value (without {@code a=crypto:}).
     *
     * @return for example {@code "1 AES_CM_128_HMAC_SHA1_80 inline:...|2^31|1:4"}.
     */
    public String format()
    {
        final StringBuilder sb = new StringBuilder(96);
        sb.append(tag).append(' ').append(suite.sdpName()).append(' ');
        for (int i = 0; i < keys.length; i++)
        {
            if (i > 0)
            {
                sb.append(';');
            }
            sb.append("inline:").append(Base64.getEncoder().encodeToString(keys[i]));
            if (0 != lifetimes[i])
            {
                sb.append('|');
                final long lifetime = lifetimes[i];
                if (Long.bitCount(lifetime) == 1)
                {
                    sb.append("2^").append(Long.numberOfTrailingZeros(lifetime));
                }
                else
                {
                    sb.append(lifetime);
                }
            }
            if (null != mkis[i])
            {
                sb.append('|').append(new BigInteger(1, mkis[i])).append(':').append(mkis[i].length);
            }
        }
        for (final String param : sessionParams)
        {
            sb.append(' ').append(param);
        }
        return sb.toString();
    }

    @Override
    public String toString()
    {
        return "SdesCryptoAttribute{tag=" + tag + ", suite=" + suite + ", keys=" + keys.length + "}";
    }

    private static int parseTag(final String text)
    {
        // RFC 4568 §9.1: tag = 1*9DIGIT
        if (text.isEmpty() || text.length() > 9 || !isDigits(text))
        {
            throw new IllegalArgumentException("tag must be 1 to 9 digits: '" + text + "'");
        }
        return Integer.parseInt(text);
    }

    private static void parseKeyParam(
        final SrtpCryptoSuite suite,
        final String param,
        final int i,
        final byte[][] keys,
        final long[] lifetimes,
        final byte[][] mkis)
    {
        if (!param.startsWith("inline:"))
        {
            throw new IllegalArgumentException("key-param must use key-method 'inline': '" + param + "'");
        }
        final String[] parts = param.substring("inline:".length()).split("\\|", -1);
        if (parts.length > 3)
        {
            throw new IllegalArgumentException("key-info has too many '|' fields: '" + param + "'");
        }
        final byte[] key;
        try
        {
            key = Base64.getDecoder().decode(parts[0]);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("key-salt is not base64: " + ex.getMessage(), ex);
        }
        if (key.length != suite.masterKeySaltLength())
        {
            throw new IllegalArgumentException(suite + " needs " + suite.masterKeySaltLength() +
                " octets of key||salt, inline: has " + key.length);
        }
        keys[i] = key;
        for (int p = 1; p < parts.length; p++)
        {
            final String field = parts[p];
            if (field.indexOf(':') >= 0)
            {
                if (p != parts.length - 1 || null != mkis[i])
                {
                    throw new IllegalArgumentException("MKI must be the last key-info field: '" + param + "'");
                }
                mkis[i] = parseMki(field);
            }
            else
            {
                if (p != 1)
                {
                    throw new IllegalArgumentException("lifetime must come before the MKI: '" + param + "'");
                }
                lifetimes[i] = parseLifetime(field);
            }
        }
    }

    private static long parseLifetime(final String field)
    {
        final long lifetime;
        if (field.startsWith("2^"))
        {
            final int exponent = parseDecimal(field.substring(2), "lifetime exponent", 48);
            lifetime = 1L << exponent;
        }
        else
        {
            if (field.isEmpty() || field.length() > 15 || !isDigits(field))
            {
                throw new IllegalArgumentException("lifetime must be 2^n or decimal: '" + field + "'");
            }
            lifetime = Long.parseLong(field);
        }
        if (lifetime < 1 || lifetime > 1L << 48)
        {
            // RFC 3711 §9.2: at most 2^48 SRTP packets under one master key.
            throw new IllegalArgumentException("lifetime must be in [1, 2^48]: '" + field + "'");
        }
        return lifetime;
    }

    private static byte[] parseMki(final String field)
    {
        final int colon = field.indexOf(':');
        final String value = field.substring(0, colon);
        final int length = parseDecimal(field.substring(colon + 1), "MKI length", 128);
        if (length < 1)
        {
            throw new IllegalArgumentException("MKI length must be 1 to 128: '" + field + "'");
        }
        if (value.isEmpty() || !isDigits(value))
        {
            throw new IllegalArgumentException("MKI value must be decimal: '" + field + "'");
        }
        final BigInteger mki = new BigInteger(value);
        if (mki.bitLength() > 8 * length)
        {
            throw new IllegalArgumentException("MKI value " + value + " does not fit in " + length + " octets");
        }
        final byte[] raw = mki.toByteArray();
        final byte[] out = new byte[length];
        final int copy = Math.min(raw.length, length);
        System.arraycopy(raw, raw.length - copy, out, length - copy, copy);
        return out;
    }

    private static int parseDecimal(final String text, final String what, final int max)
    {
        if (text.isEmpty() || text.length() > 10 || !isDigits(text))
        {
            throw new IllegalArgumentException(what + " must be a decimal number: '" + text + "'");
        }
        final long value = Long.parseLong(text);
        if (value > max)
        {
            throw new IllegalArgumentException(what + " must be at most " + max + ": " + text);
        }
        return (int)value;
    }

    private static boolean isDigits(final String text)
    {
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c < '0' || c > '9')
            {
                return false;
            }
        }
        return true;
    }
}
