/**
 * The proxy example: a record-routing SIP proxy written against the standard JSR 289 API only.
 */
package io.sipline.examples.proxy;
