package io.sipline.sip.message;

import io.sipline.sip.message.oracle.MessageFacts;

/** Reads the {@link MessageFacts} of a parsed Sipline message, for comparison with the manifests and the RI. */
final class SiplineFacts
{
    private SiplineFacts()
    {
    }

    static MessageFacts of(final SipMessage m)
    {
        return new MessageFacts(
            m.isRequest() ? m.methodName() : null,
            m.isRequest() ? m.requestUri() : null,
            m.isRequest() ? MessageFacts.ABSENT : m.statusCode(),
            m.callId(),
            m.cseqNumber(),
            m.cseqMethodName(),
            m.topViaBranch(),
            m.fromTag(),
            m.toTag(),
            m.contentLength());
    }
}
