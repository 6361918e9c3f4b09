package io.sipline.cluster;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A grid member alone in a child JVM, for the test that kills one with SIGKILL: joins with
 * {@code CLUSTER NODE BIND_PORT PEER_PORT...} on 127.0.0.1, prints {@code joined} and waits to be killed.
 */
public final class GridMemberMain
{
    private GridMemberMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final List<InetSocketAddress> peers = new ArrayList<>();
        for (int i = 3; i < args.length; i++)
        {
            peers.add(new InetSocketAddress(loopback, Integer.parseInt(args[i])));
        }
        final InfinispanReplicator member = InfinispanReplicator.start(args[0],
            new InetSocketAddress(loopback, Integer.parseInt(args[2])), peers, Integer.parseInt(args[1]));
        System.out.println("joined " + member.members().size());
        System.out.flush();
        Thread.sleep(600_000);
        member.close();
    }
}
