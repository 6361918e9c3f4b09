/**
 * Naming and resource injection for applications (JSR 289 §18, on the Java EE model of Servlet 3.1 §15.5): a
 * read-only {@code java:comp/env} context per application, found by JNDI through the container's own
 * {@link javax.naming.spi.InitialContextFactoryBuilder}, and {@code @Resource} injection into servlets and listeners.
 * Nothing here runs on a message's path: contexts are built when an application starts and read by lookups.
 */
package io.sipline.container.naming;
