@SipApplication(name="ClickToCallAsyncApplication", displayName="ClickToCallAsyncApplication")
package org.mobicents.servlet.sip.example;
import javax.servlet.sip.annotation.SipApplication;