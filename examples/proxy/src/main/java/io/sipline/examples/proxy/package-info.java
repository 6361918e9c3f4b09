/**
 * The proxy example (issue 5 §3): a record-routing SIP proxy written against the standard JSR 289 API only.
 */
package io.sipline.examples.proxy;
