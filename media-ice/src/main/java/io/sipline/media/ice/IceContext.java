package io.sipline.media.ice;

import io.sipline.media.stun.StunAddress;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageWriter;
import io.sipline.media.turn.TurnClient;

import java.security.SecureRandom;
import java.util.SplittableRandom;

/**
 * What every {@link IceAgent} of one media thread shares instead of owning a copy: the integrity engine, the STUN
 * reader and writer, a scratch buffer for outgoing messages, the TURN clients' codec and buffer, and the random
 * sources. Keeping
 * these per thread rather than per session is most of what keeps a session small (PJNATH gives each STUN session
 * its own packet buffer).
 *
 * <p>Not thread-safe; owned by one media thread and used only by the agents running on it.
 */
public final class IceContext
{
    /** Bytes of the scratch buffer (an ICE check with the longest ufrags RFC 8839 allows fits). */
    public static final int SCRATCH = 1280;

    final StunIntegrity integrity = new StunIntegrity();
    final StunMessageWriter writer = new StunMessageWriter();
    final StunMessageFlyweight message = new StunMessageFlyweight(16, StunAttributeType.BINDING_KNOWN_LOW);
    final StunAddress address = new StunAddress();
    final byte[] scratch = new byte[SCRATCH];
    final TurnClient.Shared turn = new TurnClient.Shared(integrity, UdpEndpoint.MAX_DATAGRAM);
    final SecureRandom secureRandom = new SecureRandom();
    final SplittableRandom random = new SplittableRandom(secureRandom.nextLong());

    /**
     * @return the thread's integrity engine (also for TURN clients created beside the agents).
     */
    public StunIntegrity integrity()
    {
        return integrity;
    }

    /**
     * @return what the thread's TURN clients share.
     */
    public TurnClient.Shared turn()
    {
        return turn;
    }
}
