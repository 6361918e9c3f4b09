package io.sipline.container.api;

import javax.servlet.sip.Proxy;
import javax.servlet.sip.ProxyBranch;

/**
 * The proxy of a session's initial request (JSR 289 §10) as the session sees it: the session only records that it
 * proxies, and whether the proxy is supervised; the proxy package implements it.
 * <p>
 * Threading as {@link Proxy}: the session's shard, or the application's thread while it holds the application session.
 */
public interface SessionProxy extends Proxy, ResponseRoute
{
    @Override
    default Proxy routeProxy()
    {
        return this;
    }

    @Override
    default ProxyBranch routeBranch()
    {
        return null;
    }
}
