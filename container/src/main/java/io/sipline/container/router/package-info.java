/**
 * Application selection (JSR 289 §15.4, Appendix C): the default application router and its DAR file reader
 * ({@link io.sipline.container.router.DefaultApplicationRouter}, {@link
 * io.sipline.container.router.DarConfiguration}), and the lookup of a custom router through
 * {@code META-INF/services} ({@link io.sipline.container.router.ApplicationRouters}).
 */
package io.sipline.container.router;
