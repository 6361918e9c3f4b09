package io.sipline.container.deploy;

/**
 * Where a piece of the deployment model was declared: in {@code WEB-INF/sip.xml} or by an annotation found in the
 * application's classes (JSR 289 §18).
 * <p>
 * Threading: an enum, immutable.
 */
public enum DescriptorOrigin
{
    /** Declared in the deployment descriptor. */
    SIP_XML,

    /** Declared by {@code @SipServlet}, {@code @SipListener}, {@code @SipApplication} or {@code @SipApplicationKey}. */
    ANNOTATION
}
