package io.sipline.sip.transport.tcp;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * RFC 5626 §5.2 flow tokens for the WebSocket clients' connections: the URI user part an edge proxy writes in the
 * Record-Route or Path it adds for a client, naming the connection so that a request routed back through that entry
 * goes out on it, on whichever shard holds it. A token is 27 base64url characters of: the shard (2 bytes), the
 * connection's number on that shard (8 bytes, never reused while the process runs) and the first 10 bytes of an
 * HMAC-SHA256 of both under a key drawn at start, so that a token cannot be forged or altered (§5.2 wants a proxy to
 * detect a token that was tampered with). A token of a connection that has closed names no flow: the request gets
 * 430 Flow Failed (§5.3); a forged one gets 403.
 *
 * <p><b>Threading.</b> One per stack, shared by its shards: a {@link ConcurrentHashMap} per shard, written by that
 * shard when a WebSocket connection opens or closes and read by any shard routing a request; a {@link Mac} per
 * thread. A connection's token is made once and kept on it.
 */
public final class FlowTokens
{
    /** Characters of a token: 20 bytes in base64url without padding. */
    public static final int LENGTH = 27;
    private static final int BODY_BYTES = 10;
    private static final int MAC_BYTES = 10;
    /** 27 base64 characters carry 162 bits for the 160 of the token: the last one's two low bits are unused. */
    private static final int UNUSED_LAST_BITS = 0x3;
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    /** Open WebSocket connections by shard, then by number. */
    private final List<ConcurrentHashMap<Long, TcpConnection>> byShard;
    private final ThreadLocal<Mac> macs;

    FlowTokens(final int shards)
    {
        final byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        key = new SecretKeySpec(secret, ALGORITHM);
        final List<ConcurrentHashMap<Long, TcpConnection>> tables = new ArrayList<>();
        for (int i = 0; i < Math.max(1, shards); i++)
        {
            tables.add(new ConcurrentHashMap<>());
        }
        byShard = List.copyOf(tables);
        final SecretKeySpec k = key;
        macs = ThreadLocal.withInitial(() -> newMac(k));
    }

    private static Mac newMac(final SecretKeySpec key)
    {
        try
        {
            final Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        }
        catch (final GeneralSecurityException e)
        {
            throw new IllegalStateException("HmacSHA256 is part of every Java platform", e);
        }
    }

    /** A WebSocket connection of shard {@code shard} opened with number {@code id}. That shard's thread. */
    void register(final int shard, final long id, final TcpConnection connection)
    {
        if (shard < byShard.size())
        {
            byShard.get(shard).put(id, connection);
        }
    }

    /** The connection numbered {@code id} on shard {@code shard} closed. That shard's thread. */
    void forget(final int shard, final long id, final TcpConnection connection)
    {
        if (shard < byShard.size())
        {
            byShard.get(shard).remove(id, connection);
        }
    }

    /**
     * The token naming a WebSocket client's connection (made once, then kept on the connection), or null for a
     * connection that has none (not WebSocket, or not open yet). Any thread.
     */
    public String tokenOf(final TcpFlow flow)
    {
        final TcpConnection c = flow.connection();
        String token = c.flowToken();
        if (null == token && c.flowId() > 0)
        {
            final byte[] bytes = new byte[BODY_BYTES + MAC_BYTES];
            ByteBuffer.wrap(bytes).putShort((short)c.flowShard()).putLong(c.flowId());
            final byte[] mac = sign(bytes);
            System.arraycopy(mac, 0, bytes, BODY_BYTES, MAC_BYTES);
            token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            c.flowToken(token);
        }
        return token;
    }

    /** Whether {@code token} is one this process made (whether or not its connection is still open). Any thread. */
    public boolean isAuthentic(final CharSequence token)
    {
        return null != decode(token);
    }

    /**
     * The open flow a token names (RFC 5626 §5.3), or null when the token was not made here (forged, altered, of
     * another process) or its connection has closed. Any thread.
     */
    public TcpFlow flowOf(final CharSequence token)
    {
        final byte[] bytes = decode(token);
        if (null == bytes)
        {
            return null;
        }
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        final int shard = b.getShort() & 0xffff;
        final long id = b.getLong();
        final TcpConnection c = shard < byShard.size() ? byShard.get(shard).get(id) : null;
        return null == c || !c.isActive() ? null : c.flow();
    }

    /** The token's bytes when its MAC checks out, else null. */
    private byte[] decode(final CharSequence token)
    {
        if (null == token || token.length() != LENGTH || !canonicalLast(token.charAt(LENGTH - 1)))
        {
            return null;
        }
        final byte[] bytes;
        try
        {
            bytes = Base64.getUrlDecoder().decode(token.toString());
        }
        catch (final IllegalArgumentException e)
        {
            return null;
        }
        final byte[] mac = sign(bytes);
        final byte[] given = new byte[MAC_BYTES];
        System.arraycopy(bytes, BODY_BYTES, given, 0, MAC_BYTES);
        final byte[] wanted = new byte[MAC_BYTES];
        System.arraycopy(mac, 0, wanted, 0, MAC_BYTES);
        return MessageDigest.isEqual(given, wanted) ? bytes : null; // constant time
    }

    /**
     * Whether the last character leaves the bits the decoder ignores at zero, as our encoder writes them: otherwise
     * four spellings would decode to one token, and a changed character would still be authentic.
     */
    private static boolean canonicalLast(final char c)
    {
        final int sextet = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26
            : c >= '0' && c <= '9' ? c - '0' + 52 : c == '-' ? 62 : c == '_' ? 63 : -1;
        return sextet >= 0 && 0 == (sextet & UNUSED_LAST_BITS);
    }

    private byte[] sign(final byte[] bytes)
    {
        final Mac mac = macs.get();
        mac.update(bytes, 0, BODY_BYTES);
        return mac.doFinal();
    }

    /** Open connections with a token (racy; for metrics and tests). */
    public int size()
    {
        int n = 0;
        for (final ConcurrentHashMap<Long, TcpConnection> m : byShard)
        {
            n += m.size();
        }
        return n;
    }
}
