package io.sipline.container.dispatch;

import io.netty.buffer.ByteBuf;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transport.StatelessResponder;

/**
 * The responses the container writes itself, straight from the stack's message and without a session: errors of
 * dispatch (404, 481, 482, 483, 500), the overload 503 (RFC 3261 §21.5.4), what the server answers with no
 * application deployed, and a response sent quietly on behalf of a session.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard, created with it). The request is
 * borrowed; the response buffer is allocated here and handed to the stack, which takes ownership.
 */
final class DirectAnswers
{
    private final StackShard shard;
    private final ContainerIds ids;
    private final ContainerShardImpl.Counters counters;

    DirectAnswers(final StackShard shard, final ContainerIds ids, final ContainerShardImpl.Counters counters)
    {
        this.shard = shard;
        this.ids = ids;
        this.counters = counters;
    }

    /** A response built straight from the borrowed request (no session). */
    void answer(final ServerTransaction tx, final SipMessage request, final int status, final String reason)
    {
        answer(tx, request, status, reason, status > 100 ? ids.newTagOnShard() : null);
    }

    /** A response with the To tag {@code toTag} (may be null) built straight from the borrowed request. */
    void answer(final ServerTransaction tx, final SipMessage request, final int status, final String reason,
        final CharSequence toTag)
    {
        final ByteBuf out = shard.allocate(256 + request.length());
        shard.builder().startResponse(out, request, status, reason, toTag).end(null, 0, 0);
        shard.respond(tx, out, status);
    }

    /** Without applications: what the server answers without a container (StatelessResponder's rules). */
    void noApplication(final ServerTransaction tx, final SipMessage request)
    {
        counters.noApplication.incrementAndGet();
        if (SipMethod.OPTIONS == request.method())
        {
            final ByteBuf out = shard.allocate(512 + request.length());
            shard.builder().startResponse(out, request, 200, "OK", ids.newTagOnShard())
                .header(HeaderName.ALLOW, StatelessResponder.ALLOW)
                .header(HeaderName.ACCEPT, "application/sdp")
                .header(HeaderName.SUPPORTED, "")
                .end(null, 0, 0);
            shard.respond(tx, out, 200);
            return;
        }
        if (tx.maxForwardsExhausted())
        {
            answer(tx, request, 483, "Too Many Hops");
            return;
        }
        answer(tx, request, 404, StatelessResponder.NO_APPLICATION);
    }

    /** Sends a response of the container to a session's request; a failure is logged once. */
    static void sendQuietly(final SipServletRequestImpl request, final int status, final String reason)
    {
        try
        {
            request.createResponse(status, reason).send();
        }
        catch (final Exception e)
        {
            ShardLog.logOnce("answer:" + status, "a " + status + " could not be sent", e);
        }
    }
}
