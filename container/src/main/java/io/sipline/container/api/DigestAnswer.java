package io.sipline.container.api;

import java.util.ArrayList;
import java.util.List;

import javax.servlet.sip.AuthInfo;
import javax.servlet.sip.SipServletResponse;

import io.sipline.container.security.AuthInfoImpl;
import io.sipline.container.security.CredentialSource;
import io.sipline.container.security.DigestClient;

/**
 * Answers the digest challenges of a 401 or 407 on a request the application sends
 * ({@code SipServletRequest.addAuthHeader}, JSR 289 §4.1.5; RFC 3261 §22.2): one {@code Authorization} (401) or
 * {@code Proxy-Authorization} (407) value per challenged realm the credentials cover, computed by the application's
 * {@link DigestClient}. Stateless.
 * <p>
 * Threading: runs on the caller's thread, with the request it writes to (see {@link SipServletMessageImpl}).
 */
final class DigestAnswer
{
    private DigestAnswer()
    {
    }

    /**
     * @throws IllegalArgumentException when the {@code AuthInfo} is not one {@code SipFactory.createAuthInfo()} made.
     */
    static void answer(final SipServletRequestImpl request, final SipServletResponse challengeResponse,
        final AuthInfo authInfo)
    {
        if (!(authInfo instanceof AuthInfoImpl source))
        {
            throw new IllegalArgumentException("the AuthInfo was not made by SipFactory.createAuthInfo()");
        }
        answerWith(request, challengeResponse, source);
    }

    /** With one user name and password for every realm. */
    static void answer(final SipServletRequestImpl request, final SipServletResponse challengeResponse,
        final String username, final String password)
    {
        if (null == username || null == password)
        {
            throw new IllegalArgumentException("username and password are required");
        }
        answerWith(request, challengeResponse, CredentialSource.of(username, password));
    }

    private static void answerWith(final SipServletRequestImpl request, final SipServletResponse challengeResponse,
        final CredentialSource source)
    {
        request.checkWritable();
        if (null == challengeResponse)
        {
            throw new NullPointerException("challengeResponse");
        }
        final int status = challengeResponse.getStatus();
        final List<String> challenges = new ArrayList<>(2);
        challengeResponse.getHeaders(DigestClient.challengeHeader(status)).forEachRemaining(challenges::add);
        final SipSessionImpl session = request.sessionImpl();
        if (null == session)
        {
            throw new IllegalStateException("the request has no session");
        }
        final String credentialsHeader = DigestClient.credentialsHeader(status);
        for (final String value : session.appSession().application().digestClient()
            .answer(status, challenges, request.getMethod(), request.requestUriText(), source))
        {
            request.addHeader(credentialsHeader, value);
        }
    }
}
