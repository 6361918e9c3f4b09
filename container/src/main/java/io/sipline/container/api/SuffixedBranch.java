package io.sipline.container.api;

import javax.servlet.sip.Proxy;
import javax.servlet.sip.ProxyBranch;

/**
 * A proxy branch whose requests carry a suffix after the branch of the proxy's Via (RFC 3261 §16.6 item 8: a dot
 * and the loop-detection hash of the request as received): a request the branch sends reads the suffix from it, so
 * that the request's {@link ClientLeg} keeps no field of its own for it.
 * <p>
 * Threading: read on the request's shard while the request is sent.
 */
public interface SuffixedBranch extends ProxyBranch, ResponseRoute
{
    @Override
    default Proxy routeProxy()
    {
        return getProxy();
    }

    @Override
    default ProxyBranch routeBranch()
    {
        return this;
    }

    /** The suffix appended to the branch of the proxy's Via, or null for none. */
    String branchSuffix();
}
