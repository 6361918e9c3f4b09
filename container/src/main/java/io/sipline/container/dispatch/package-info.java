/**
 * Dispatch (JSR 289 §15): the container on the stack's shards. Start here.
 * <ul>
 *   <li>{@link io.sipline.container.dispatch.ContainerServer}: starts the SIP stack with one
 *       {@link io.sipline.container.dispatch.ContainerShardImpl} per shard; {@code Main} and the tests use it.</li>
 *   <li>{@link io.sipline.container.dispatch.ContainerShardImpl}: the stack's {@code SipListener} on one shard, and
 *       the {@code ContainerShard} its sessions use; it wires one class per stage of a message's path:
 *       {@link io.sipline.container.dispatch.InboundRequests} (initial requests through the
 *       {@link io.sipline.container.dispatch.ApplicationComposition application router} to a servlet, subsequent
 *       requests to their session), {@link io.sipline.container.dispatch.InboundResponses},
 *       {@link io.sipline.container.dispatch.OutboundRequests}, {@link io.sipline.container.dispatch.UasResponses},
 *       {@link io.sipline.container.dispatch.ProxyDispatch} and {@link io.sipline.container.dispatch.ServletInvoker}.
 *       </li>
 *   <li>{@link io.sipline.container.dispatch.ApplicationRegistry}: the running applications (the deployment side's
 *       {@code DeploymentListener}), published to the shards as an immutable map in a volatile field.</li>
 *   <li>{@link io.sipline.container.dispatch.RunningApplicationImpl}: one application with its servlet context, its
 *       initialised servlets and its listeners.</li>
 * </ul>
 * Threading: every call of one application session runs on the shard its Call-IDs and tags encode, one at a time,
 * without locks.
 */
package io.sipline.container.dispatch;
