package io.sipline.media.ice;

import io.sipline.media.stun.StunAddress;

import java.net.InetSocketAddress;

/**
 * The local and remote candidates of one {@link IceAgent}, in the arrays that its check list and valid list index:
 * host, server-reflexive and relayed local candidates (RFC 8445 §5.1.1) with their redundancy rule (§5.1.3), remote
 * candidates from SDP or trickle (RFC 8838), peer-reflexive candidates learnt on either side (§7.2.5.3.1,
 * §7.3.1.3), and the compaction that frees the candidates no selected pair uses (§8.3.1).
 *
 * <p>A new local or remote candidate is paired with the other side at once (§6.1.2, incrementally with trickle).
 *
 * <p>Not thread-safe; owned by the agent's media thread. Allocates one candidate (and one JDK address for a remote
 * one) when a candidate is learnt; nothing per packet.
 */
final class IceCandidates
{
    private final IceAgent agent;
    private final IceFoundations foundations;
    final IceCandidate[] locals;
    /** Per local candidate: the owner's socket id that its base is bound to. */
    final int[] localSocket;
    int localCount;
    final IceCandidate[] remotes;
    /** Per remote candidate: its address as a JDK address, made once (the owner's transport sends to it). */
    final InetSocketAddress[] remoteAddress;
    int remoteCount;

    IceCandidates(final IceAgent agent, final IceLimits limits)
    {
        this.agent = agent;
        foundations = new IceFoundations(limits.maxLocalCandidates());
        locals = new IceCandidate[limits.maxLocalCandidates()];
        localSocket = new int[limits.maxLocalCandidates()];
        remotes = new IceCandidate[limits.maxRemoteCandidates()];
        remoteAddress = new InetSocketAddress[limits.maxRemoteCandidates()];
    }

    /** §5.1.1.1: a host candidate on a socket the owner bound; null when the local limit is reached. */
    IceCandidate addHost(final int component, final int socket, final InetSocketAddress address)
    {
        if (localCount == locals.length)
        {
            return null;
        }
        final IceCandidate candidate = new IceCandidate();
        IceAddresses.setAddress(candidate, address);
        final int localPreference = IcePriority.DEFAULT_LOCAL_PREFERENCE - hostsOf(component);
        candidate.set(IceCandidateType.HOST, component,
            IcePriority.candidate(IceCandidateType.HOST, localPreference, component), null);
        candidate.set(IceCandidateType.HOST, component, candidate.priority(),
            foundations.foundationOf(candidate, IceCandidate.FAMILY_NONE, 0, 0));
        return addLocal(candidate, socket);
    }

    /**
     * A server-reflexive candidate learnt from a STUN Binding or a TURN Allocate (§5.1.1.2), based on host
     * {@code host}; §5.1.3: one equal to its host address (no NAT) is redundant and dropped.
     */
    void addReflexive(final int host, final StunAddress mapped, final InetSocketAddress server)
    {
        final IceCandidate base = locals[host];
        final IceCandidate candidate = new IceCandidate();
        IceAddresses.setAddress(candidate, mapped);
        candidate.base(base.family(), base.addressHi(), base.addressLo(), base.port());
        candidate.related(base.family(), base.addressHi(), base.addressLo(), base.port());
        final int localPreference = (base.priority() >>> 8) & 0xFFFF;
        candidate.set(IceCandidateType.SERVER_REFLEXIVE, base.componentId(),
            IcePriority.candidate(IceCandidateType.SERVER_REFLEXIVE, localPreference, base.componentId()), null);
        final IceCandidate serverAddress = IceAddresses.setAddress(new IceCandidate(), server);
        candidate.set(IceCandidateType.SERVER_REFLEXIVE, base.componentId(), candidate.priority(),
            foundations.foundationOf(candidate, serverAddress.family(), serverAddress.addressHi(),
                serverAddress.addressLo()));
        addLocal(candidate, localSocket[host]);
    }

    /**
     * A relayed candidate (§5.1.1.2, RFC 8656) reached through host {@code host}'s socket.
     *
     * @return its index, or -1 when it was not added (redundant or the limit is reached).
     */
    int addRelayed(final int component, final int host, final StunAddress relayed, final StunAddress mapped,
        final InetSocketAddress server)
    {
        final IceCandidate candidate = new IceCandidate();
        IceAddresses.setAddress(candidate, relayed);
        if (0 != mapped.family())
        {
            IceAddresses.setRelated(candidate, mapped);
        }
        candidate.set(IceCandidateType.RELAYED, component,
            IcePriority.candidate(IceCandidateType.RELAYED, IcePriority.DEFAULT_LOCAL_PREFERENCE, component), null);
        final IceCandidate serverAddress = IceAddresses.setAddress(new IceCandidate(), server);
        candidate.set(IceCandidateType.RELAYED, component, candidate.priority(),
            foundations.foundationOf(candidate, serverAddress.family(), serverAddress.addressHi(),
                serverAddress.addressLo()));
        return null == addLocal(candidate, localSocket[host]) ? -1 : localCount - 1;
    }

    /**
     * §7.2.5.3.2: the local candidate of the valid pair a successful check from {@code base} produces — the local
     * candidate of the component whose transport address equals the mapped address (the base itself, a
     * server-reflexive or relayed candidate, a peer-reflexive one learnt earlier); §7.2.5.3.1: if there is none, a
     * peer-reflexive local candidate with that address is learnt. Falls back to the base when the limit is reached.
     *
     * @param base   the local candidate the check left from.
     * @param mapped the response's XOR-MAPPED-ADDRESS (borrowed for the call).
     * @return the local candidate's index.
     */
    int validLocal(final int base, final StunAddress mapped)
    {
        final IceCandidate baseCandidate = locals[base];
        for (int l = 0; l < localCount; l++)
        {
            if (locals[l].componentId() == baseCandidate.componentId() && IceAddresses.same(mapped, locals[l]))
            {
                return l;
            }
        }
        if (localCount == locals.length)
        {
            return base;
        }
        // §7.2.5.3.1: priority as the PRIORITY attribute of the check carried (§7.2.2), base the check's base.
        final int localPreference = (baseCandidate.priority() >>> 8) & 0xFFFF;
        final IceCandidate candidate = new IceCandidate();
        IceAddresses.setAddress(candidate, mapped);
        candidate.base(baseCandidate.family(), baseCandidate.addressHi(), baseCandidate.addressLo(),
            baseCandidate.port());
        candidate.set(IceCandidateType.PEER_REFLEXIVE, baseCandidate.componentId(),
            IcePriority.candidate(IceCandidateType.PEER_REFLEXIVE, localPreference, baseCandidate.componentId()),
            null);
        candidate.set(IceCandidateType.PEER_REFLEXIVE, baseCandidate.componentId(), candidate.priority(),
            foundations.foundationOf(candidate, IceCandidate.FAMILY_NONE, 0, 0));
        return null == addLocal(candidate, localSocket[base]) ? base : localCount - 1;
    }

    /** Adds a local candidate unless redundant (§5.1.3); pairs it with the remote ones; reports it. */
    IceCandidate addLocal(final IceCandidate candidate, final int socket)
    {
        for (int l = 0; l < localCount; l++)
        {
            if (locals[l].componentId() == candidate.componentId() && locals[l].sameTransportAddress(candidate)
                && locals[l].sameBase(candidate))
            {
                return null;
            }
        }
        if (localCount == locals.length)
        {
            return null;
        }
        locals[localCount] = candidate;
        localSocket[localCount] = socket;
        localCount++;
        if (remoteCount > 0 && IceCandidateType.PEER_REFLEXIVE != candidate.type())
        {
            agent.list.addPairs(agent.controlling(), localCount - 1, -1, localCount, remoteCount,
                IcePairState.WAITING);
        }
        if (IceCandidateType.PEER_REFLEXIVE != candidate.type())
        {
            agent.listener.onLocalCandidate(agent, candidate);
        }
        return candidate;
    }

    /** Adds a remote candidate unless a duplicate or over the limits, and pairs it. */
    boolean addRemote(final IceCandidate candidate)
    {
        if (remoteCount == remotes.length || candidate.componentId() > agent.components())
        {
            return false;
        }
        for (int r = 0; r < remoteCount; r++)
        {
            if (remotes[r].componentId() == candidate.componentId() && remotes[r].sameTransportAddress(candidate))
            {
                return false;
            }
        }
        remotes[remoteCount] = candidate;
        remoteAddress[remoteCount] = IceAddresses.toInet(candidate);
        remoteCount++;
        // §6.1.2.6 with trickle (RFC 8838 §11): new pairs are Waiting unless a pair of the same foundation is
        // already being checked, which the pacer's unfreezing takes care of.
        final IceCheckList list = agent.list;
        list.addPairs(agent.controlling(), -1, remoteCount - 1, localCount, remoteCount,
            list.size() == 0 ? IcePairState.WAITING : IcePairState.FROZEN);
        return true;
    }

    /** §7.3.1.3: a remote candidate learnt from a check's source; its priority is the PRIORITY attribute. */
    int learnPeerReflexive(final int local, final InetSocketAddress from, final long priority)
    {
        if (remoteCount == remotes.length || priority <= 0)
        {
            return -1;
        }
        final IceCandidate candidate = new IceCandidate();
        IceAddresses.setAddress(candidate, from);
        candidate.set(IceCandidateType.PEER_REFLEXIVE, locals[local].componentId(), (int) priority,
            "prflx" + remoteCount);
        remotes[remoteCount] = candidate;
        remoteAddress[remoteCount] = from;
        return remoteCount++;
    }

    /** §9: the remote candidates are forgotten (ICE restart). */
    void forgetRemotes()
    {
        for (int r = 0; r < remoteCount; r++)
        {
            remotes[r] = null;
            remoteAddress[r] = null;
        }
        remoteCount = 0;
    }

    int hostsOf(final int component)
    {
        int n = 0;
        for (int l = 0; l < localCount; l++)
        {
            if (IceCandidateType.HOST == locals[l].type() && locals[l].componentId() == component)
            {
                n++;
            }
        }
        return n;
    }

    /** @return the first host candidate of a component, or -1. */
    int firstHost(final int component)
    {
        for (int l = 0; l < localCount; l++)
        {
            if (IceCandidateType.HOST == locals[l].type() && locals[l].componentId() == component)
            {
                return l;
            }
        }
        return -1;
    }

    /** @return the host candidate bound to the owner's socket, or -1. */
    int hostOfSocket(final int socket)
    {
        for (int l = 0; l < localCount; l++)
        {
            if (localSocket[l] == socket && IceCandidateType.HOST == locals[l].type())
            {
                return l;
            }
        }
        return -1;
    }

    /** @return the remote candidate with that address, or -1. */
    int remoteIndexOf(final InetSocketAddress address)
    {
        for (int r = 0; r < remoteCount; r++)
        {
            if (remoteAddress[r].equals(address))
            {
                return r;
            }
        }
        return -1;
    }

    /**
     * §8.3.1: keeps the host candidates and those a selected pair uses, in order, and nulls the rest.
     *
     * @param selection the selected pairs.
     * @return the old index to new index map (-1: freed); allocated (signalling-rate work).
     */
    int[] compactLocals(final IceSelection selection)
    {
        final int[] localMap = new int[localCount];
        int kept = 0;
        for (int l = 0; l < localCount; l++)
        {
            localMap[l] = -1;
            if (IceCandidateType.HOST == locals[l].type() || selection.uses(l))
            {
                localMap[l] = kept;
                locals[kept] = locals[l];
                localSocket[kept] = localSocket[l];
                kept++;
            }
        }
        for (int l = kept; l < localCount; l++)
        {
            locals[l] = null;
        }
        localCount = kept;
        return localMap;
    }

    /**
     * §8.3.1: keeps the remote candidates a selected pair uses, in order, and nulls the rest.
     *
     * @param selection the selected pairs.
     * @return the old index to new index map (-1: freed); allocated (signalling-rate work).
     */
    int[] compactRemotes(final IceSelection selection)
    {
        final int[] remoteMap = new int[remoteCount];
        int kept = 0;
        for (int r = 0; r < remoteCount; r++)
        {
            remoteMap[r] = -1;
            if (selection.usesRemote(remoteAddress[r]))
            {
                remoteMap[r] = kept;
                remotes[kept] = remotes[r];
                remoteAddress[kept] = remoteAddress[r];
                kept++;
            }
        }
        for (int r = kept; r < remoteCount; r++)
        {
            remotes[r] = null;
            remoteAddress[r] = null;
        }
        remoteCount = kept;
        return remoteMap;
    }
}
