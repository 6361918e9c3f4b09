package io.sipline.container.api;

import javax.servlet.sip.Proxy;
import javax.servlet.sip.ProxyBranch;

/**
 * The proxy and branch a received response came through (JSR 289 §10.2.4), as one reference a response keeps: a
 * proxy is its own route with no branch, a branch is its own route through its proxy, and a pair of the two covers
 * a branch that is not its proxy's.
 * <p>
 * Threading: read on the response's shard, or the application's thread while it holds the application session.
 */
public interface ResponseRoute
{
    /** The proxy the response came through. */
    Proxy routeProxy();

    /** The branch the response came through, or null when none. */
    ProxyBranch routeBranch();
}
