/**
 * The uac example: an application that starts on its own and sends a periodic OPTIONS with the SipFactory and a
 * ServletTimer ({@link io.sipline.examples.uac.OptionsPinger}), counting the answers
 * ({@link io.sipline.examples.uac.OptionsServlet}).
 */
package io.sipline.examples.uac;
