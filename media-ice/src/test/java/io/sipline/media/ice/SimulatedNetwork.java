package io.sipline.media.ice;

import io.sipline.media.stun.StunBindingServer;
import io.sipline.media.stun.StunIntegrity;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * A deterministic in-memory UDP network for ICE tests: agents attach sockets at addresses, datagrams are delivered
 * after a fixed latency on a clock the test advances, routes can be blocked, an endpoint can sit behind a full-cone
 * NAT (its source rewritten to a public address; inbound packets to that address forwarded), and a STUN Binding
 * server can be placed at an address.
 *
 * <p>Single-threaded; owned by the test.
 */
final class SimulatedNetwork
{
    static final long LATENCY_MS = 5;

    private record Datagram(long at, InetSocketAddress from, InetSocketAddress to, byte[] bytes)
    {
    }

    private record Endpoint(IceAgent agent, int socket)
    {
    }

    private final ArrayDeque<Datagram> queue = new ArrayDeque<>();
    private final Map<InetSocketAddress, Endpoint> endpoints = new HashMap<>();
    private final Map<InetSocketAddress, InetSocketAddress> natOut = new HashMap<>();
    private final Map<InetSocketAddress, InetSocketAddress> natIn = new HashMap<>();
    private final Map<InetSocketAddress, Node> nodes = new HashMap<>();
    private final Set<String> blocked = new HashSet<>();
    private final List<IceAgent> agents = new ArrayList<>();
    private Recorder recorder;
    private long now;
    private long delivered;
    private long dropped;

    long now()
    {
        return now;
    }

    long delivered()
    {
        return delivered;
    }

    long dropped()
    {
        return dropped;
    }

    /** A transport for one agent: socket ids map to the addresses given to {@link #attach}. */
    IceAgent.Transport transport(final Map<Integer, InetSocketAddress> sockets)
    {
        return (socket, buf, off, len, to) ->
            send(sockets.get(socket), to, Arrays.copyOfRange(buf, off, off + len));
    }

    void attach(final IceAgent agent, final int socket, final InetSocketAddress address)
    {
        endpoints.put(address, new Endpoint(agent, socket));
        if (!agents.contains(agent))
        {
            agents.add(agent);
        }
    }

    /** Forgets an agent: its sockets stop receiving and it is no longer polled (nor referenced). */
    void detach(final IceAgent agent)
    {
        endpoints.values().removeIf(e -> e.agent() == agent);
        agents.remove(agent);
    }

    /** Puts {@code inside} behind a full-cone NAT with public address {@code outside}. */
    void nat(final InetSocketAddress inside, final InetSocketAddress outside)
    {
        natOut.put(inside, outside);
        natIn.put(outside, inside);
    }

    /** Blocks datagrams from one address to another (after NAT translation of the source). */
    void block(final InetSocketAddress from, final InetSocketAddress to)
    {
        blocked.add(from + ">" + to);
    }

    /** Blocks everything leaving an address (inside the NAT). */
    void blockAllFrom(final InetSocketAddress from)
    {
        blocked.add(from + ">*");
    }

    void unblockAll()
    {
        blocked.clear();
    }

    /** Sees every datagram delivered to an agent. */
    interface Recorder
    {
        void onDelivered(int socket, InetSocketAddress from, byte[] bytes);
    }

    /** Records every datagram delivered to an agent from now on. */
    void recordInto(final Recorder value)
    {
        recorder = value;
    }

    /** A server placed in the network: it gets every datagram sent to its addresses. */
    interface Node
    {
        void onDatagram(InetSocketAddress from, InetSocketAddress to, byte[] bytes);
    }

    /** Places a node at an address (a server may take several: its listening and relayed addresses). */
    void place(final InetSocketAddress address, final Node node)
    {
        nodes.put(address, node);
    }

    /** Removes a node's address. */
    void remove(final InetSocketAddress address)
    {
        nodes.remove(address);
    }

    /** Places an unauthenticated STUN Binding server. */
    void stunServer(final InetSocketAddress address)
    {
        final StunBindingServer server = new StunBindingServer(
            (buf, off, len, to) -> send(address, to, Arrays.copyOfRange(buf, off, off + len)),
            new StunIntegrity(), null, null);
        place(address, (from, to, bytes) -> server.onDatagram(bytes, 0, bytes.length, from));
    }

    /** Sends a datagram (used by nodes; agents send through {@link #transport}). */
    void send(final InetSocketAddress from, final InetSocketAddress to, final byte[] bytes)
    {
        if (blocked.contains(from + ">*"))
        {
            dropped++;
            return;
        }
        final InetSocketAddress source = natOut.getOrDefault(from, from);
        if (blocked.contains(source + ">" + to))
        {
            dropped++;
            return;
        }
        queue.add(new Datagram(now + LATENCY_MS, source, to, bytes));
    }

    /** Advances the clock by {@code ms} in 1 ms steps, delivering datagrams and polling every agent. */
    void run(final long ms)
    {
        run(ms, 1);
    }

    /** Advances the clock by {@code ms} in steps of {@code stepMs} (coarser steps for long steady phases). */
    void run(final long ms, final long stepMs)
    {
        final long end = now + ms;
        while (now < end)
        {
            step(Math.min(stepMs, end - now));
        }
    }

    /** Runs until the condition holds; fails after {@code maxMs} of simulated time. */
    void runUntil(final BooleanSupplier condition, final long maxMs)
    {
        final long end = now + maxMs;
        while (!condition.getAsBoolean())
        {
            if (now >= end)
            {
                throw new AssertionError("condition not met within " + maxMs + " ms of simulated time");
            }
            step(1);
        }
    }

    private void step(final long stepMs)
    {
        now += stepMs;
        while (!queue.isEmpty() && queue.peek().at() <= now)
        {
            final Datagram d = queue.poll();
            final Node node = nodes.get(d.to());
            if (null != node)
            {
                node.onDatagram(d.from(), d.to(), d.bytes());
                delivered++;
                continue;
            }
            final InetSocketAddress target = natIn.getOrDefault(d.to(), d.to());
            final Endpoint endpoint = endpoints.get(target);
            if (null == endpoint || natOut.containsKey(d.to()))
            {
                dropped++; // nobody there, or a private address behind a NAT reached from outside
                continue;
            }
            delivered++;
            if (null != recorder)
            {
                recorder.onDelivered(endpoint.socket(), d.from(), d.bytes());
            }
            endpoint.agent().onDatagram(endpoint.socket(), d.bytes(), 0, d.bytes().length, d.from(), now);
        }
        for (final IceAgent agent : agents)
        {
            agent.poll(now);
        }
    }
}
