/**
 * The address objects of JSR 289 (the javadoc of {@code javax.servlet.sip}): {@link javax.servlet.sip.URI}
 * of any scheme, {@link javax.servlet.sip.SipURI} (RFC 3261 §19.1), {@link javax.servlet.sip.TelURL} (RFC 3966),
 * {@link javax.servlet.sip.Parameterable} and {@link javax.servlet.sip.Address}, made from text by
 * {@link io.sipline.container.address.SipAddresses}.
 *
 * <p>Layout: a URI is one ASCII byte array, read through the stack's
 * {@code SipUriFlyweight} on demand and compared by the stack's {@code UriComparison}; an address is its display
 * name, its URI and one {@code String[]} of parameters. A parsed
 * {@code "Alice" <sip:alice@atlanta.example.com>;tag=1928301774} keeps 240 bytes (the text alone as a String: 96),
 * a parsed {@code sip:alice@atlanta.example.com} 72 (as much as the String); see {@code AddressFootprintTest}.
 *
 * <p>System headers: the message layer hands out {@code readOnly(header)} copies (every setter throws
 * {@link java.lang.IllegalStateException}) and, for From and To, {@code tagProtected(header)} copies (only the tag
 * is refused).
 */
package io.sipline.container.address;
