package io.sipline.media.relay;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The media relay: a fixed set of {@link MediaThread}s of its own (never a SIP shard's), each owning the sockets and
 * streams it was given, and the port range they share. {@link #open} allocates a stream's two legs (an even/odd port
 * pair each) and gives the stream to one thread, round robin; from then on only that thread touches it.
 *
 * <p>Lifecycle: {@link #start} opens the threads; {@link #close()} stops them, and each closes the sockets of the
 * streams it still holds.
 *
 * <p>Thread-safe: {@link #open} and the counters may be used from any thread.
 */
public final class MediaRelay implements AutoCloseable
{
    private final MediaRelaySettings settings;
    private final PortAllocator ports;
    private final MediaThread[] threads;
    private final AtomicInteger next = new AtomicInteger();

    private MediaRelay(final MediaRelaySettings settings) throws IOException
    {
        this.settings = settings;
        this.ports = new PortAllocator(settings);
        this.threads = new MediaThread[settings.threads()];
        try
        {
            for (int i = 0; i < threads.length; i++)
            {
                threads[i] = new MediaThread("sipline-media-" + i, ports, settings.idleTimeoutMs());
            }
        }
        catch (final IOException e)
        {
            for (final MediaThread t : threads)
            {
                if (null != t)
                {
                    t.stop();
                }
            }
            throw e;
        }
    }

    /**
     * Starts the media threads.
     *
     * @param settings port range, addresses, threads, idle time.
     * @return the running relay.
     * @throws IOException when a selector cannot be opened.
     */
    public static MediaRelay start(final MediaRelaySettings settings) throws IOException
    {
        final MediaRelay relay = new MediaRelay(settings);
        for (final MediaThread t : relay.threads)
        {
            final Thread thread = new Thread(t, t.roleName());
            thread.setDaemon(true);
            t.runOn(thread);
            thread.start();
        }
        return relay;
    }

    /** @return the settings the relay runs with. */
    public MediaRelaySettings settings()
    {
        return settings;
    }

    /** @return the address to write into SDP {@code c=} lines. */
    public InetAddress advertisedAddress()
    {
        return settings.advertised();
    }

    /**
     * Opens a stream: two legs, each with an RTP and an RTCP socket bound in the port range, served by one media
     * thread from now on.
     *
     * @param events  told of idleness and handshake failures, on the media thread.
     * @param aSecure whether leg A carries SRTP.
     * @param aDtls   leg A's DTLS-SRTP side, or null (then SDES keys come through {@link RelayLeg#keys}).
     * @param bSecure whether leg B carries SRTP.
     * @param bDtls   leg B's DTLS-SRTP side, or null.
     * @return the stream; close it when the call ends.
     * @throws IOException when the port range has no two free pairs.
     */
    public RelayStream open(final RelayEvents events, final boolean aSecure, final DtlsPacketSink aDtls,
        final boolean bSecure, final DtlsPacketSink bDtls) throws IOException
    {
        final DatagramChannel[] a = ports.open();
        final DatagramChannel[] b;
        try
        {
            b = ports.open();
        }
        catch (final IOException e)
        {
            closePair(a);
            throw e;
        }
        final MediaThread thread = threads[Math.floorMod(next.getAndIncrement(), threads.length)];
        final RelayStream stream = new RelayStream(thread, events, a, aSecure, aDtls, b, bSecure, bDtls);
        thread.execute(() -> {
            try
            {
                thread.add(stream);
            }
            catch (final IOException e)
            {
                stream.close();
            }
        });
        return stream;
    }

    private void closePair(final DatagramChannel[] pair)
    {
        try
        {
            final int port = ((java.net.InetSocketAddress)pair[0].getLocalAddress()).getPort();
            PortAllocator.closeQuietly(pair[0]);
            PortAllocator.closeQuietly(pair[1]);
            ports.release(port);
        }
        catch (final IOException e)
        {
            PortAllocator.closeQuietly(pair[0]);
            PortAllocator.closeQuietly(pair[1]);
        }
    }

    /**
     * @param reason a {@link RelayDrop} constant.
     * @return datagrams dropped for that reason, over every thread.
     */
    public long drops(final int reason)
    {
        long sum = 0;
        for (final MediaThread t : threads)
        {
            sum += t.drops(reason);
        }
        return sum;
    }

    /**
     * @return exceptions the media threads caught from a packet or a task (the first one is logged): 0 unless
     *         something is wrong, since bad input is dropped and counted, never thrown.
     */
    public long errors()
    {
        long sum = 0;
        for (final MediaThread t : threads)
        {
            sum += t.errors();
        }
        return sum;
    }

    /** @return packets relayed, over every thread. */
    public long relayed()
    {
        long sum = 0;
        for (final MediaThread t : threads)
        {
            sum += t.relayed();
        }
        return sum;
    }

    /** @return port pairs held by open streams (two per stream). */
    public int portPairsInUse()
    {
        return ports.inUse();
    }

    /** @return the media threads, for tests that measure them. */
    Thread[] threads()
    {
        final Thread[] out = new Thread[threads.length];
        for (int i = 0; i < threads.length; i++)
        {
            out[i] = threads[i].thread();
        }
        return out;
    }

    /** Stops the media threads; each closes the sockets of the streams it holds. Waits up to 5 s for them. */
    @Override
    public void close()
    {
        for (final MediaThread t : threads)
        {
            t.stop();
        }
        for (final MediaThread t : threads)
        {
            final Thread thread = t.thread();
            if (null != thread && thread != Thread.currentThread())
            {
                try
                {
                    thread.join(TimeUnit.SECONDS.toMillis(5));
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
