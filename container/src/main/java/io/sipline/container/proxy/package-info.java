/**
 * Proxying (JSR 289 chapter 10 on RFC 3261 §16): {@link io.sipline.container.proxy.ProxyImpl} for one received
 * request and its {@link io.sipline.container.proxy.ProxyBranchImpl branches} (parallel or sequential forking,
 * per-branch timeouts, recursion on 3xx, record-routing, Path), the response context that picks the best final
 * response ({@link io.sipline.container.proxy.ResponseContext}, §16.7), loop detection
 * ({@link io.sipline.container.proxy.LoopDetection}, §16.3 and §16.6 step 8) and the Route rules of §16.4 and §16.6
 * ({@link io.sipline.container.proxy.ProxyRoutes}).
 * <p>
 * Threading: everything here runs on the shard that owns the request's application session; the dispatch layer
 * hands branch responses, timeouts and CANCELs to the proxy there.
 */
package io.sipline.container.proxy;
