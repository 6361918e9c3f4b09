package io.sipline.container.proxy;

import java.util.ArrayList;
import java.util.List;

import io.sipline.container.api.SipServletResponseImpl;

/**
 * The response context of one proxied request (RFC 3261 §16.7): the final non-2xx responses its branches received
 * (a 2xx is forwarded at once and never kept), and the choice of the best one when every branch has completed.
 * <pre>
 *   step 6: a 6xx if any; else the lowest class; within 4xx prefer 401, 407, 415, 420, 484 (they let the caller
 *           resubmit); none at all: 408
 *   step 6: a chosen 503 goes upstream as 500 (the caller must not think every hop is unavailable)
 *   step 7: a chosen 401/407 carries the challenges of every 401 and 407 in the context
 * </pre>
 * Threading: the proxy's shard only.
 */
public final class ResponseContext
{
    /** The final responses kept; an immutable empty list until the first (a 2xx-only search keeps none). */
    private List<SipServletResponseImpl> responses = List.of();

    /** Adds a final response (300-699) a branch received. */
    public void add(final SipServletResponseImpl response)
    {
        if (responses.isEmpty())
        {
            responses = new ArrayList<>(2);
        }
        responses.add(response);
    }

    public boolean isEmpty()
    {
        return responses.isEmpty();
    }

    /** The responses kept, in arrival order. */
    public List<SipServletResponseImpl> responses()
    {
        return responses;
    }

    /** §16.7 step 6: the best response, or null when the context is empty (the caller answers 408). */
    public SipServletResponseImpl best()
    {
        SipServletResponseImpl best = null;
        for (int i = 0; i < responses.size(); i++)
        {
            final SipServletResponseImpl r = responses.get(i);
            if (null == best || better(r.getStatus(), best.getStatus()))
            {
                best = r;
            }
        }
        return best;
    }

    /** Whether {@code candidate} beats {@code current} under §16.7 step 6 (ties keep the earlier response). */
    static boolean better(final int candidate, final int current)
    {
        final int a = candidate / 100;
        final int b = current / 100;
        if (6 == a || 6 == b)
        {
            return 6 == a && 6 != b;
        }
        if (a != b)
        {
            return a < b;
        }
        return 4 == a && resubmittable(candidate) && !resubmittable(current);
    }

    private static boolean resubmittable(final int status)
    {
        return 401 == status || 407 == status || 415 == status || 420 == status || 484 == status;
    }

    /** §16.7 step 6: the status sent upstream for a chosen {@code status}. */
    public static int upstreamStatus(final int status)
    {
        return 503 == status ? 500 : status;
    }

    /**
     * §16.7 step 7: the {@code WWW-Authenticate} and {@code Proxy-Authenticate} values of every 401 and 407 in the
     * context but {@code best}, to add to the forwarded {@code best}.
     */
    public List<String[]> otherChallenges(final SipServletResponseImpl best)
    {
        final List<String[]> out = new ArrayList<>(2);
        for (final SipServletResponseImpl r : responses)
        {
            if (r == best || (401 != r.getStatus() && 407 != r.getStatus()))
            {
                continue;
            }
            for (final String name : CHALLENGE_HEADERS)
            {
                for (final String value : r.headers().getAll(name))
                {
                    out.add(new String[] {name, value});
                }
            }
        }
        return out;
    }

    private static final String[] CHALLENGE_HEADERS = {"WWW-Authenticate", "Proxy-Authenticate"};
}
