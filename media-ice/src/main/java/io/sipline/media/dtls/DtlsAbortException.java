package io.sipline.media.dtls;

import java.io.InterruptedIOException;

/**
 * Thrown out of a {@link PacketDatagramTransport} receive to end a handshake for a reason of ours (timeout, local
 * close), so that the handshake thread reports that reason rather than a protocol error. An
 * {@link InterruptedIOException}, because Bouncy Castle lets those out of an established connection without
 * failing it, so that a local close still sends {@code close_notify} rather than a fatal alert.
 *
 * <p>Immutable; thrown and caught on one handshake thread.
 */
final class DtlsAbortException extends InterruptedIOException
{
    private static final long serialVersionUID = 1L;

    private final DtlsFailure failure;

    DtlsAbortException(final DtlsFailure failure, final String message)
    {
        super(message);
        this.failure = failure;
    }

    DtlsFailure failure()
    {
        return failure;
    }
}
