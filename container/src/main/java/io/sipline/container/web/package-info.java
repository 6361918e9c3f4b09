/**
 * The web half of converged applications (JSR 289 §13): an embedded Jetty in its EE8 environment
 * ({@link io.sipline.container.web.WebServer}) serves each deployed application's HTTP servlets, filters, listeners
 * and static resources at {@code /<WAR name>} ({@link io.sipline.container.web.WebApplication}), from the class loader
 * of its SIP half and with one {@code ServletContext} for both. {@link io.sipline.container.web.ConvergedDeployment}
 * deploys, replaces and removes both halves together. HTTP sessions are
 * {@link javax.servlet.sip.ConvergedHttpSession}s ({@link io.sipline.container.web.ConvergedHttpSessionImpl}) whose
 * application session is reached through a handle that hands each call to the session's shard.
 * <p>
 * Threading: the engine's own threads ({@code sipline-http-*}) and the deploying thread; never a shard.
 */
package io.sipline.container.web;
