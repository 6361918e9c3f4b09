package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The cluster flags: what they become in {@link RunOptions#cluster()}, and the errors for a wrong member list. */
class CliClusterTest extends CliCase
{
    @Test
    void shouldBeOutsideAClusterByDefault()
    {
        assertEquals(Cli.SERVING, run("run"));
        assertNull(started.cluster());
    }

    @Test
    void shouldTakeNameBindPeersAndDeriveTheNodeFromTheMemberOrder()
    {
        final String[] members = {"127.0.0.2:7800", "127.0.0.3:7800", "127.0.0.4:7800"};
        for (int i = 0; i < members.length; i++)
        {
            final List<String> peers = new java.util.ArrayList<>(List.of(members));
            peers.remove(i);
            assertEquals(Cli.SERVING, run("run", "--cluster-name", "demo", "--cluster-bind", members[i],
                "--cluster-peers", String.join(",", peers)), err.toString());
            final RunOptions.Cluster c = started.cluster();
            assertEquals("demo", c.name());
            assertEquals(new InetSocketAddress("127.0.0.2", 7800).getAddress(),
                i == 0 ? c.bind().getAddress() : c.peers().getFirst().getAddress());
            assertEquals(2, c.peers().size());
            assertEquals(i, c.node(), "every node derives the same numbering from the same members");
        }
    }

    @Test
    void shouldTakeAnExplicitNodeAndAClusterOfOne()
    {
        assertEquals(Cli.SERVING, run("run", "--cluster-name", "one", "--cluster-bind", "127.0.0.1:7800",
            "--cluster-node", "9"));
        assertEquals(9, started.cluster().node());
        assertEquals(List.of(), started.cluster().peers());
    }

    @Test
    void shouldRefuseAWrongPeerList()
    {
        final String[] base = {"run", "--cluster-name", "c", "--cluster-bind", "127.0.0.1:7800", "--cluster-peers"};
        assertEquals(2, run(concat(base, "127.0.0.2")));
        assertTrue(errorLine().contains("--cluster-peers: '127.0.0.2' is not ADDR:PORT"), err.toString());
        assertEquals(2, run(concat(base, "127.0.0.2:7800,,127.0.0.3:7800")));
        assertTrue(errorLine().contains("an empty entry"), err.toString());
        assertEquals(2, run(concat(base, "127.0.0.2:70000")));
        assertTrue(errorLine().contains("not within 1-65535"), err.toString());
        assertEquals(2, run(concat(base, "127.0.0.2:x")));
        assertTrue(errorLine().contains("the port is not a number"), err.toString());
        assertEquals(2, run(concat(base, "127.0.0.2:7800,127.0.0.2:7800")));
        assertTrue(errorLine().contains("given twice"), err.toString());
        assertEquals(2, run(concat(base, "127.0.0.1:7800")));
        assertTrue(errorLine().contains("is this node's --cluster-bind"), err.toString());
        assertEquals(2, run(concat(base, "::1:7800")));
        assertTrue(errorLine().contains("in brackets"), err.toString());
        assertEquals(2, run(concat(base, "no-such-host.invalid:7800")));
        assertTrue(errorLine().contains("unknown host"), err.toString());
    }

    @Test
    void shouldRefuseClusterFlagsWithoutANameOrABindAndANodeOutOfRange()
    {
        assertEquals(2, run("run", "--cluster-peers", "127.0.0.2:7800"));
        assertTrue(errorLine().contains("need --cluster-name"), err.toString());
        assertEquals(2, run("run", "--cluster-name", "c"));
        assertTrue(errorLine().contains("needs --cluster-bind"), err.toString());
        assertEquals(2, run("run", "--cluster-name", "c", "--cluster-bind", "127.0.0.1:7800", "--cluster-node",
            "256"));
        assertTrue(errorLine().contains("--cluster-node: 256 is not within 0-255"), err.toString());
        assertEquals(2, run("run", "--cluster-name", "a b", "--cluster-bind", "127.0.0.1:7800"));
        assertTrue(errorLine().contains("--cluster-name"), err.toString());
    }

    @Test
    void shouldTakeTheFrontAsALooseRouteAndRefuseOneThatIsNotASipUri()
    {
        final String[] base = {"run", "--cluster-name", "c", "--cluster-bind", "127.0.0.1:7800", "--cluster-front"};
        assertEquals(Cli.SERVING, run(concat(base, "sip:127.0.0.1:5060")), err.toString());
        assertEquals("sip:127.0.0.1:5060;lr", started.cluster().front());
        assertEquals(Cli.SERVING, run(concat(base, "sip:front.example;transport=tcp;lr")), err.toString());
        assertEquals("sip:front.example;transport=tcp;lr", started.cluster().front());
        assertEquals(Cli.SERVING, run("run", "--cluster-name", "c", "--cluster-bind", "127.0.0.1:7800"));
        assertNull(started.cluster().front(), "no front: the node's requests go to their Request-URI");
        assertEquals(2, run(concat(base, "127.0.0.1:5060")));
        assertTrue(errorLine().contains("--cluster-front: '127.0.0.1:5060' is not a sip: or sips: URI"),
            err.toString());
        assertEquals(2, run(concat(base, "sip:lb@127.0.0.1")));
        assertTrue(errorLine().contains("no user part"), err.toString());
        assertEquals(2, run(concat(base, "sip:127.0.0.1:99999")));
        assertTrue(errorLine().contains("not within 1-65535"), err.toString());
        assertEquals(2, run(concat(base, "sip::5060")));
        assertTrue(errorLine().contains("has no host"), err.toString());
        assertEquals(2, run("run", "--cluster-front", "sip:127.0.0.1:5060"));
        assertTrue(errorLine().contains("need --cluster-name"), err.toString());
    }

    private static String[] concat(final String[] a, final String b)
    {
        final String[] out = java.util.Arrays.copyOf(a, a.length + 1);
        out[a.length] = b;
        return out;
    }
}
