/**
 * What applications create requests with: {@link io.sipline.container.factory.SipFactoryImpl} (JSR 289 §4.1.1:
 * addresses, URIs, application sessions, new requests, copies of received requests) and
 * {@link io.sipline.container.factory.B2buaHelperImpl} (§12: new legs, linked sessions and requests, responses to the
 * original request, CANCEL of the other leg, pending messages).
 */
package io.sipline.container.factory;
