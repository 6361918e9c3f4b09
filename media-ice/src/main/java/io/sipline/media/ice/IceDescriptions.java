package io.sipline.media.ice;

/**
 * The SDP side of an {@link IceAgent} (RFC 8839): writing our ICE attributes and reading the peer's. Signalling-path
 * work: it allocates the text and the candidates it parses.
 *
 * <p>Stateless; called on the agent's media thread.
 */
final class IceDescriptions
{
    private IceDescriptions()
    {
    }

    /** See {@link IceAgent#localDescription()}. */
    static String local(final IceAgent agent)
    {
        final IceCandidates candidates = agent.candidates;
        final StringBuilder out = new StringBuilder(256 + 96 * candidates.localCount);
        try
        {
            final IceSessionAttributes attributes = new IceSessionAttributes();
            attributes.ufrag(agent.credentials.localUfrag);
            attributes.password(agent.credentials.localPassword);
            // RFC 8445 §10: "An agent compliant to this specification MUST inform the peer about the compliance using
            // the 'ice2' option" (which also tells an RFC 5245 peer not to nominate aggressively); trickle: RFC 8838.
            attributes.options(IceSdp.OPTION_TRICKLE | IceSdp.OPTION_ICE2);
            attributes.lite(agent.lite());
            if (IceAgent.TA_DEFAULT_MS != agent.localTaMs)
            {
                attributes.pacingMs(agent.localTaMs);
            }
            attributes.append(out);
        }
        catch (final IceParseException ex)
        {
            throw new IllegalStateException(ex); // our own credentials are always valid
        }
        for (int l = 0; l < candidates.localCount; l++)
        {
            if (IceCandidateType.PEER_REFLEXIVE != candidates.locals[l].type())
            {
                IceSdp.appendCandidate(out.append("a="), candidates.locals[l]).append("\r\n");
            }
        }
        if (agent.gatheringComplete)
        {
            out.append("a=end-of-candidates\r\n");
        }
        return out.toString();
    }

    /**
     * Parses the peer's ICE lines: session attributes into {@code attributes}, candidates into {@code parsed}.
     *
     * @param sdp        SDP text (lines other than ICE attributes are ignored).
     * @param attributes receives the session attributes.
     * @return the candidates, in order, with a null after the last one (or a full array).
     * @throws IceParseException when an ICE attribute is malformed or the credentials are missing.
     */
    static IceCandidate[] parseRemote(final String sdp, final IceSessionAttributes attributes)
        throws IceParseException
    {
        final String[] lines = sdp.split("\r?\n");
        final IceCandidate[] parsed = new IceCandidate[lines.length];
        int count = 0;
        for (final String line : lines)
        {
            if (line.startsWith("a=candidate:"))
            {
                parsed[count++] = IceSdp.parseCandidate(line);
            }
            else if (line.startsWith("a="))
            {
                attributes.accept(line);
            }
        }
        if (null == attributes.ufrag() || null == attributes.password())
        {
            throw new IceParseException(IceParseException.MALFORMED,
                "remote description without ice-ufrag and ice-pwd");
        }
        return parsed;
    }
}
