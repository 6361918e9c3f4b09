package io.sipline.sip.transport;

import java.io.IOException;

import io.netty.channel.Channel;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.unix.FileDescriptor;

/**
 * The epoll handle of one socket a UDP shard reads with recvmsg ({@link UdpShardReads}): a duplicate of its channel's
 * descriptor, registered on the shard's loop (Netty keys registrations by descriptor number, so it does not clash with
 * the channel's). {@link #stop()} takes it off epoll and then closes the duplicate, once; a stopped reader never reads
 * again, so a descriptor number the kernel gives to a new socket is never read through it.
 *
 * <p>Not thread-safe; owned by the shard's event loop. One per socket, made when the socket becomes active.
 */
abstract class UdpNativeReader implements EpollIoHandle
{
    final UdpShardReads reads;
    final FileDescriptor fd;
    IoRegistration registration;
    /** True from {@link #stop()} on: never read again. */
    boolean stopped;
    /** True while the registration is under way: {@link #stop()} leaves the release to its listener. */
    boolean pending;

    UdpNativeReader(final UdpShardReads reads, final int fd)
    {
        this.reads = reads;
        this.fd = new FileDescriptor(fd);
    }

    @Override
    public final FileDescriptor fd()
    {
        return fd;
    }

    /** Never read again; off epoll and the duplicate closed (at once, or when the registration completes). */
    final void stop()
    {
        if (stopped)
        {
            return;
        }
        stopped = true;
        if (!pending)
        {
            release();
        }
        stopped();
    }

    /**
     * Off epoll, then the duplicate closed: in this order, because epoll keeps an interest in a descriptor that is
     * closed while another descriptor of the same socket (the channel's) is open, and would keep reporting it.
     */
    final void release()
    {
        if (null != registration)
        {
            registration.cancel(); // on this loop: removed from epoll at once
            registration = null;
        }
        closeDescriptor();
    }

    /** After {@link #stop()}: the shard's own bookkeeping. */
    abstract void stopped();

    /** Closes the duplicate descriptor (the socket stays open through the channel's); idempotent. */
    final void closeDescriptor()
    {
        try
        {
            fd.close();
        }
        catch (final IOException e)
        {
            reads.readerFailed(e);
        }
    }

    @Override
    public final void close()
    {
        // The loop shuts down with the registration still there (it is being closed): let go of the duplicate, and
        // of the shard's count of readers, so that its receive buffer is released with the last one.
        registration = null;
        pending = false;
        if (stopped)
        {
            closeDescriptor();
        }
        else
        {
            stop();
        }
    }

    /** The reader of one listening socket. */
    static final class Listening extends UdpNativeReader
    {
        final UdpEndpoint endpoint;

        Listening(final UdpShardReads reads, final UdpEndpoint endpoint, final int fd)
        {
            super(reads, fd);
            this.endpoint = endpoint;
        }

        @Override
        public void handle(final IoRegistration registration, final IoEvent event)
        {
            reads.onReadable(this);
        }

        @Override
        void stopped()
        {
            if (endpoint.reader == this)
            {
                endpoint.reader = null;
            }
            reads.listeningStopped();
        }
    }

    /** The reader of one connected peer channel. */
    static final class Peer extends UdpNativeReader
    {
        final UdpPeers.Peer peer;
        final Channel channel;

        Peer(final UdpShardReads reads, final UdpPeers.Peer peer, final Channel channel, final int fd)
        {
            super(reads, fd);
            this.peer = peer;
            this.channel = channel;
        }

        @Override
        public void handle(final IoRegistration registration, final IoEvent event)
        {
            reads.onReadable(this);
        }

        @Override
        void stopped()
        {
            channel.attr(UdpShardReads.READER).compareAndSet(this, null);
            reads.peerStopped();
        }
    }
}
