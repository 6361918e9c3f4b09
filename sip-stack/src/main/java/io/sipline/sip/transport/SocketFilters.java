package io.sipline.sip.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;

import io.netty.channel.Channel;
import io.netty.channel.unix.RawUnixChannelOption;

/**
 * Classic BPF programs (Linux {@code linux/filter.h}) set on a datagram socket through Netty's
 * {@link RawUnixChannelOption}: the {@code struct sock_fprog} is built in native memory with the FFM API and its
 * address passed to {@code setsockopt}, which copies the program into the kernel. No JNI, no C.
 *
 * <pre>
 * struct sock_filter {          struct sock_fprog {               (x86-64 / aarch64 layout)
 *     u16 code;   // offset 0       unsigned short len;    // 0
 *     u8  jt;     // offset 2       (6 bytes of padding)
 *     u8  jf;     // offset 3       struct sock_filter *filter; // 8
 *     u32 k;      // offset 4   };                              // 16 bytes
 * };              // 8 bytes
 * </pre>
 *
 * <p>Stateless; thread-safe. Called on the loop of the channel being set up.
 */
final class SocketFilters
{
    /** {@code SOL_SOCKET}. */
    private static final int SOL_SOCKET = 1;
    /** {@code SO_ATTACH_FILTER}: a program run on every datagram queued to this socket; 0 drops it. */
    private static final int SO_ATTACH_FILTER = 26;
    /** {@code SO_ATTACH_REUSEPORT_CBPF}: a program that returns the index of the group's socket to deliver to. */
    private static final int SO_ATTACH_REUSEPORT_CBPF = 51;

    /** {@code BPF_LD | BPF_H | BPF_ABS}: A = the 16-bit word at k (network order). */
    private static final short LDH_ABS = 0x28;
    /** {@code BPF_LD | BPF_W | BPF_ABS}: A = the 32-bit word at k (network order). */
    private static final short LD_ABS = 0x20;
    /** {@code BPF_JMP | BPF_JEQ | BPF_K}: pc += (A == k) ? jt : jf. */
    private static final short JEQ_K = 0x15;
    /** {@code BPF_RET | BPF_K}: accept k bytes (0 drops). */
    private static final short RET_K = 0x06;
    /** {@code BPF_ALU | BPF_MOD | BPF_K}: A = A % k. */
    private static final short MOD_K = 0x94;
    /** {@code BPF_RET | BPF_A}: return A. */
    private static final short RET_A = 0x16;
    /** {@code SKF_AD_OFF + SKF_AD_CPU}: {@code ld} from here loads the number of the CPU running the program. */
    private static final int AD_CPU = -0x1000 + 36;
    /** {@code SKF_NET_OFF}: negative offsets from here address the network (IP) header. */
    private static final int NET_OFF = -0x100000;
    /** Source address in the IPv4 header (RFC 791) and in the IPv6 header (RFC 8200). */
    private static final int IPV4_SOURCE = 12;
    private static final int IPV6_SOURCE = 8;

    private static final RawUnixChannelOption ATTACH_FILTER =
        new RawUnixChannelOption("SO_ATTACH_FILTER", SOL_SOCKET, SO_ATTACH_FILTER, 16);
    private static final RawUnixChannelOption ATTACH_REUSEPORT_CBPF =
        new RawUnixChannelOption("SO_ATTACH_REUSEPORT_CBPF", SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, 16);

    private SocketFilters()
    {
    }

    /**
     * Lets only datagrams from {@code peer} (its address and port) into the socket of {@code channel}; every other
     * datagram is dropped by the kernel before it is queued. A channel bound with {@code SO_REUSEPORT} joins its
     * group at bind and can be picked for another sender's datagram until its connect: without this filter such a
     * datagram would stay queued and be read after the connect as if the peer had sent it. Set before the bind.
     *
     * <p>A UDP socket filter sees the datagram from its UDP header (offset 0 is the source port); the IP header is
     * reached through {@code SKF_NET_OFF}.
     *
     * @throws io.netty.channel.ChannelException when the kernel refuses the program.
     */
    static void acceptOnlyFrom(final Channel channel, final InetSocketAddress peer)
    {
        final byte[] address = peer.getAddress().getAddress();
        final int words = address.length / 4;
        // ldh [0]; jeq port; then one ld/jeq per address word; ret all; ret 0.
        final int length = 2 + 2 * words + 2;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment program = arena.allocate(8L * length, 8);
            int pc = 0;
            final int drop = length - 1;
            pc = put(program, pc, LDH_ABS, 0, 0, 0);
            pc = put(program, pc, JEQ_K, 0, drop - pc - 1, peer.getPort());
            final int base = NET_OFF + (peer.getAddress() instanceof Inet6Address ? IPV6_SOURCE : IPV4_SOURCE);
            for (int w = 0; w < words; w++)
            {
                pc = put(program, pc, LD_ABS, 0, 0, base + 4 * w);
                pc = put(program, pc, JEQ_K, 0, drop - pc - 1, word(address, 4 * w));
            }
            pc = put(program, pc, RET_K, 0, 0, 0xFFFF_FFFF);
            put(program, pc, RET_K, 0, 0, 0);
            attach(channel, ATTACH_FILTER, arena, program, length);
        }
        assert peer.getAddress() instanceof Inet4Address || peer.getAddress() instanceof Inet6Address;
    }

    /**
     * Steers the {@code SO_REUSEPORT} group of {@code channel} by CPU: each datagram goes to the group's socket at
     * index {@code cpu mod shards}, the CPU being the one that runs the kernel's receive path for it (the softirq
     * CPU; on loopback, the sender's). The group's sockets are indexed in the order they joined: shard k's listening
     * socket is index k when the shards bind in order and nothing else joined before (connected peer sockets join
     * after and are never picked by this program; an index at or above the group's size falls back to the hash).
     * One program per group, set through any member:
     *
     * <pre>
     * ld  #cpu        ; A = raw_smp_processor_id()
     * mod #shards     ; A = A % shards
     * ret a           ; deliver to socket A of the group
     * </pre>
     *
     * @throws io.netty.channel.ChannelException when the kernel refuses the program (before Linux 4.5, say).
     */
    static void steerByCpu(final Channel channel, final int shards)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment program = arena.allocate(8L * 3, 8);
            int pc = put(program, 0, LD_ABS, 0, 0, AD_CPU);
            pc = put(program, pc, MOD_K, 0, 0, shards);
            put(program, pc, RET_A, 0, 0, 0);
            attach(channel, ATTACH_REUSEPORT_CBPF, arena, program, 3);
        }
    }

    /** Sets {@code option} to a {@code struct sock_fprog} pointing at {@code program} ({@code length} instructions). */
    static void attach(final Channel channel, final RawUnixChannelOption option, final Arena arena,
        final MemorySegment program, final int length)
    {
        final MemorySegment fprog = arena.allocate(16, 8);
        fprog.set(ValueLayout.JAVA_SHORT, 0, (short)length);
        fprog.set(ValueLayout.ADDRESS, 8, program);
        channel.config().setOption(option, fprog.asByteBuffer());
    }

    /** Writes one instruction at {@code pc}; returns the next pc. */
    static int put(final MemorySegment program, final int pc, final short code, final int jt, final int jf,
        final int k)
    {
        final long at = 8L * pc;
        program.set(ValueLayout.JAVA_SHORT, at, code);
        program.set(ValueLayout.JAVA_BYTE, at + 2, (byte)jt);
        program.set(ValueLayout.JAVA_BYTE, at + 3, (byte)jf);
        program.set(ValueLayout.JAVA_INT, at + 4, k);
        return pc + 1;
    }

    /** The big-endian 32-bit word at {@code at}: what {@code ld [k]} loads from the same bytes. */
    private static int word(final byte[] b, final int at)
    {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }
}
