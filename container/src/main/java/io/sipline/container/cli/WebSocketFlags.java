package io.sipline.container.cli;

import java.util.ArrayList;
import java.util.List;

import io.sipline.sip.transport.tcp.WsSettings;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The {@code sipline run} flags of SIP over WebSocket (RFC 7118), a picocli mixin of the run command: the WS and WSS
 * ports, the path, the Origin allow-list and the connection limits. Validated into a {@link RunOptions.WebSocket} by
 * {@link #options}.
 *
 * <p>Not thread-safe: filled by picocli, read once on the command's thread.
 */
final class WebSocketFlags
{
    @Option(names = "--ws-port", paramLabel = "N", converter = ListenPortConverter.class,
        description = "SIP over WebSocket (RFC 7118, ws://) port on every --bind address; 0 picks a free port, "
            + "printed at start. Off by default.")
    Integer wsPort;

    @Option(names = "--wss-port", paramLabel = "N", converter = ListenPortConverter.class,
        description = "SIP over secure WebSocket (wss://) port on every --bind address, with the certificate and key "
            + "of --tls-cert and --tls-key; 0 picks a free port. Off by default.")
    Integer wssPort;

    @Option(names = "--ws-path", paramLabel = "PATH",
        description = "The only HTTP path the WebSocket ports upgrade (like /sip); other paths get 404. "
            + "Default: any path.")
    String path;

    @Option(names = "--ws-origin", paramLabel = "LIST", split = ",",
        description = "Origins allowed to open a WebSocket (like https://phone.example.com), comma-separated; "
            + "a handshake from another Origin, or without one, gets 403. Default: any.")
    List<String> origins;

    @Option(names = "--ws-max-connections", paramLabel = "N", defaultValue = "" + WsSettings.DEFAULT_MAX_CONNECTIONS,
        description = "WebSocket connections open at once over all WS and WSS ports; more are closed at accept and "
            + "counted (default ${DEFAULT-VALUE}). 0: no limit but the file descriptors.")
    int maxConnections;

    @Option(names = "--ws-max-per-address", paramLabel = "N", defaultValue = "" + WsSettings.DEFAULT_MAX_PER_ADDRESS,
        description = "WebSocket connections open at once from one IP address (default ${DEFAULT-VALUE}); 0: no "
            + "limit.")
    int maxPerAddress;

    @Option(names = "--ws-max-message", paramLabel = "BYTES", defaultValue = "" + WsSettings.DEFAULT_MAX_BYTES,
        description = "Largest WebSocket frame and SIP message accepted (default ${DEFAULT-VALUE}); a larger one "
            + "closes the connection with code 1009.")
    int maxMessage;

    /**
     * @param udpPorts the UDP (and TCP) ports, which the WebSocket ports must not reuse.
     * @param tls      whether --tls-cert and --tls-key were given.
     * @return the WebSocket listeners, or null when neither port was given.
     * @throws IllegalArgumentException naming the flag that is wrong.
     */
    RunOptions.WebSocket options(final int[] udpPorts, final boolean tls)
    {
        if (null == wsPort && null == wssPort)
        {
            if (null != path || null != origins)
            {
                throw new IllegalArgumentException("--ws-path and --ws-origin need --ws-port or --wss-port");
            }
            return null;
        }
        if (null != wssPort && !tls)
        {
            throw new IllegalArgumentException("--wss-port needs --tls-cert and --tls-key");
        }
        for (final int p : udpPorts)
        {
            if (null != wsPort && wsPort == p || null != wssPort && wssPort == p)
            {
                throw new IllegalArgumentException("--ws-port/--wss-port: " + p + " is already a UDP/TCP port");
            }
        }
        if (null != wsPort && null != wssPort && wsPort.equals(wssPort) && wsPort != 0)
        {
            throw new IllegalArgumentException("--ws-port and --wss-port are both " + wsPort);
        }
        if (maxConnections < 0 || maxPerAddress < 0)
        {
            throw new IllegalArgumentException("--ws-max-connections and --ws-max-per-address must not be negative");
        }
        if (maxMessage < 1024 || maxMessage > 16 * 1024 * 1024)
        {
            throw new IllegalArgumentException("--ws-max-message: " + maxMessage + " is not within 1024-16777216");
        }
        final List<String> allowed = new ArrayList<>();
        if (null != origins)
        {
            for (final String o : origins)
            {
                if (!o.isBlank())
                {
                    allowed.add(o.strip());
                }
            }
        }
        final WsSettings settings = new WsSettings(null == path ? null : validPath(path),
            null == origins ? null : java.util.Set.copyOf(allowed), maxMessage, maxMessage, maxConnections,
            maxPerAddress, WsSettings.DEFAULT_PING_MILLIS, WsSettings.DEFAULT_IDLE_MILLIS,
            WsSettings.DEFAULT_HANDSHAKE_MILLIS);
        return new RunOptions.WebSocket(wsPort, wssPort, settings);
    }

    private static String validPath(final String raw)
    {
        if (!raw.startsWith("/") || raw.indexOf('?') >= 0 || raw.chars().anyMatch(c -> c <= ' '))
        {
            throw new IllegalArgumentException("--ws-path: '" + raw + "' is not an absolute path like /sip");
        }
        return raw;
    }

    /** A listening port: 0 (a free one) to 65535. */
    static final class ListenPortConverter implements ITypeConverter<Integer>
    {
        @Override
        public Integer convert(final String value)
        {
            final String v = value.strip();
            if ("0".equals(v))
            {
                return 0;
            }
            try
            {
                return PortList.port(v, v);
            }
            catch (final IllegalArgumentException e)
            {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
