package io.sipline.container.admin;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntSupplier;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.MetricType;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricFamilyDescriptor;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.sipline.container.replication.GridWriter;
import io.sipline.media.relay.MediaRelay;
import io.sipline.media.relay.RelayDrop;
import io.sipline.media.service.MediaService;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.stack.SipStack;
import io.sipline.sip.transaction.InviteResponse;
import io.sipline.sip.transaction.ResponseTimeHistogram;
import io.sipline.sip.transaction.StatelessShedding;
import io.sipline.sip.transport.MessageCounters;
import io.sipline.sip.transport.ShardCounters;
import io.sipline.sip.transport.tcp.TcpCounters;
import io.sipline.sip.transport.tcp.WsCounters;

/**
 * The {@code sipline_*} metrics of one server, as callback metrics of the Prometheus Java client: nothing is recorded
 * through the library on the SIP path; each callback reads the shards' own counters ({@link MessageCounters},
 * {@link ShardCounters}, opaque loads) and the JDK's management beans when {@code /metrics} is scraped. Names follow
 * the Prometheus conventions: base units (seconds, bytes), {@code _total} on counters (the client appends it).
 * docs/operations.md, section "Metrics and the admin port", lists them.
 *
 * <p>Built once; {@link #registry()} is scraped on the admin server's thread (the registry is thread-safe).
 */
public final class SipMetrics
{
    private static final String[] CLASSES = {"1xx", "2xx", "3xx", "4xx", "5xx", "6xx"};
    private static final SipMethod[] METHODS = SipMethod.values();
    private static final ParseResult[] PARSE_RESULTS = ParseResult.values();
    private static final InviteResponse[] INVITE_RESPONSES = InviteResponse.values();
    private static final double NANOS_PER_SECOND = 1e9;

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final SipStack stack;
    private final ContainerStatus container;

    /**
     * @param stack     the running stack; read at each scrape.
     * @param container the container's applications, or {@link ContainerStatus#NONE}.
     */
    public SipMetrics(final SipStack stack, final ContainerStatus container)
    {
        this.stack = stack;
        this.container = container;
        registerSip();
        registerShards();
        registerStreams();
        registerWebSocket();
        registerCapture();
        registerContainer();
        registerJvm();
    }

    public PrometheusRegistry registry()
    {
        return registry;
    }

    /** The label value of a request method: the method's name, "other" for any method not in {@link SipMethod}. */
    public static String methodLabel(final SipMethod method)
    {
        return SipMethod.EXTENSION == method ? "other" : method.name();
    }

    /** The label value of a parse error: its {@link ParseResult} name in lower case ({@code bad_via}, ...). */
    public static String parseErrorLabel(final ParseResult result)
    {
        return "parse_" + result.name().toLowerCase(Locale.ROOT);
    }

    private void registerSip()
    {
        counter("sipline_sip_requests_received", "SIP requests read, by method (retransmissions included)",
            (cb, k, t) ->
            {
                for (final SipMethod m : METHODS)
                {
                    cb.call(t.requestsIn(m), k, methodLabel(m));
                }
            }, "method");
        counter("sipline_sip_requests_sent", "SIP requests handed to a transport, by method (retransmissions "
            + "included)", (cb, k, t) ->
            {
                for (final SipMethod m : METHODS)
                {
                    cb.call(t.requestsOut(m), k, methodLabel(m));
                }
            }, "method");
        counter("sipline_sip_responses_received", "SIP responses read, by status class", (cb, k, t) ->
        {
            for (int c = 1; c <= MessageCounters.CLASSES; c++)
            {
                cb.call(t.responsesIn(c), k, CLASSES[c - 1]);
            }
        }, "class");
        counter("sipline_sip_responses_sent", "SIP responses handed to a transport, by status class "
            + "(retransmissions included)", (cb, k, t) ->
            {
                for (int c = 1; c <= MessageCounters.CLASSES; c++)
                {
                    cb.call(t.responsesOut(c), k, CLASSES[c - 1]);
                }
            }, "class");
        CounterWithCallback.builder().name("sipline_sip_requests_shed")
            .help("New requests refused by overload control with a stateless 503 and Retry-After, by method, before "
                + "any transaction or application: past the waits, the admission limit or the REGISTER budget; "
                + "method INVITE_again counts the retransmissions of a refused INVITE refused again")
            .labelNames("shard", "method")
            .callback(cb ->
            {
                for (int k = 0; k < stack.shardCount(); k++)
                {
                    final String shard = Integer.toString(k);
                    final StatelessShedding shed = stack.shard(k).transactions().shedding();
                    for (final SipMethod m : METHODS)
                    {
                        cb.call(shed.refused(m), shard, methodLabel(m));
                    }
                    cb.call(shed.refusedAgain(), shard, "INVITE_again");
                }
            }).register(registry);
        CounterWithCallback.builder().name("sipline_sip_shed_acks_absorbed")
            .help("ACKs of the stateless 503s of overload control, recognised by their To tag and absorbed without a "
                + "transaction or dialog lookup")
            .labelNames("shard")
            .callback(cb ->
            {
                for (int k = 0; k < stack.shardCount(); k++)
                {
                    cb.call(stack.shard(k).transactions().shedding().acksAbsorbed(), Integer.toString(k));
                }
            }).register(registry);
        CounterWithCallback.builder().name("sipline_sip_shed_cancels_answered")
            .help("CANCELs of INVITEs refused by overload control (sent before the caller had the 503), answered 481 "
                + "(RFC 3261 section 9.2) without a transaction")
            .labelNames("shard")
            .callback(cb ->
            {
                for (int k = 0; k < stack.shardCount(); k++)
                {
                    cb.call(stack.shard(k).transactions().shedding().cancelsAnswered(), Integer.toString(k));
                }
            }).register(registry);
        counter("sipline_sip_retransmissions_sent", "Messages re-sent by transactions on their own (timers A, E, G; "
            + "the last response again for a retransmitted request)", (cb, k, t) -> cb.call(t.retransmissions(), k));
        counter("sipline_sip_retransmissions_deferred", "Retransmissions put off because the stack's input lagged "
            + "behind their due time, so that a reply already received is read first (each time one was set again)",
            (cb, k, t) -> cb.call(t.mirrored(MessageCounters.RETRANSMISSIONS_DEFERRED), k));
        gauge("sipline_sip_transactions_active", "Transactions in use (as of the shard's last 1 ms tick)",
            (cb, k, t) -> cb.call(t.mirrored(MessageCounters.TRANSACTIONS_ACTIVE), k));
        gauge("sipline_sip_dialogs_active", "Dialogs in the shard's table (as of the shard's last 1 ms tick)",
            (cb, k, t) -> cb.call(t.mirrored(MessageCounters.DIALOGS_ACTIVE), k));
        registerInviteResponseTimes(registry, stack::shardCount,
            (k, kind) -> stack.shard(k).transactions().inviteResponseTimes(kind), ResponseTimeNames.SERVER);
        registerInviteResponseTimes(registry, stack::shardCount,
            (k, kind) -> stack.shard(k).transactions().inviteClientResponseTimes(kind), ResponseTimeNames.CLIENT);
        registerInputLag(registry, stack::shardCount, (k, v) -> stack.shard(k).inputLagTimes(1 == v));
    }

    /**
     * {@code sipline_sip_input_lag_seconds{shard,path}}: per message, from its arrival (the kernel's receive
     * timestamp) to the moment its shard began to handle it; {@code path="read"} for a message the shard read from its
     * own socket, {@code "handover"} for one another shard read and handed over ({@code value} 0 and 1).
     */
    static void registerInputLag(final PrometheusRegistry registry, final IntSupplier shards,
        final ShardHistograms lag)
    {
        registry.register(new ShardHistogramCollector("sipline_sip_input_lag_seconds", "Time from a message's "
            + "arrival (the kernel's receive timestamp) to the moment its shard began to handle it: path=read for one "
            + "the shard read from its own socket, path=handover for one another shard read and handed over to it "
            + "(the call's shard)", shards, "path", List.of("read", "handover"), lag));
    }

    /**
     * The names and help texts of one side's INVITE response times: the server side (this server answering an
     * INVITE) or the client side (the next hop answering this server's INVITE).
     */
    record ResponseTimeNames(String histogram, String histogramHelp, String max, String maxHelp, String untimed,
        String untimedHelp)
    {
        static final ResponseTimeNames SERVER = new ResponseTimeNames("sipline_sip_invite_response_seconds",
            "Server INVITE response time: from the kernel's receive timestamp of the INVITE to the hand-over of its "
                + "first 180 (response=180) or its first final response (2xx, 3xx-6xx) to the socket, once per INVITE "
                + "server transaction (stateless proxying not covered)",
            "sipline_sip_invite_response_max_seconds",
            "Largest server INVITE response time seen since start (see sipline_sip_invite_response_seconds)",
            "sipline_sip_invite_responses_untimed",
            "First 180s and final responses to INVITE that could not be timed: the INVITE's arrival time was "
                + "unknown, or the wall clock was stepped back");
        static final ResponseTimeNames CLIENT = new ResponseTimeNames("sipline_sip_invite_client_response_seconds",
            "Next hop's INVITE response time as this server saw it: from the hand-over of an INVITE client "
                + "transaction's INVITE to the socket to the kernel's receive timestamp of its first 180 "
                + "(response=180) or its first final response (2xx, 3xx-6xx), once per INVITE client transaction",
            "sipline_sip_invite_client_response_max_seconds",
            "Largest next-hop INVITE response time seen since start (see "
                + "sipline_sip_invite_client_response_seconds)",
            "sipline_sip_invite_client_responses_untimed",
            "First 180s and final responses to this server's INVITEs that could not be timed: a send or arrival time "
                + "was unknown, or the wall clock was stepped back");
    }

    /** Where the INVITE response-time histograms are: shard index and kind to that shard's histogram. */
    @FunctionalInterface
    interface ResponseTimes
    {
        ResponseTimeHistogram of(int shard, InviteResponse kind);
    }

    /**
     * {@code sipline_sip_invite_response_seconds{shard,response}} (histogram), its {@code _max_seconds} gauge and the
     * {@code sipline_sip_invite_responses_untimed_total} counter (or the client side's, after {@code names}), read at
     * scrape time from the transaction layers' histograms
     * ({@link io.sipline.sip.transaction.TransactionLayer#inviteResponseTimes},
     * {@link io.sipline.sip.transaction.TransactionLayer#inviteClientResponseTimes}).
     */
    static void registerInviteResponseTimes(final PrometheusRegistry registry, final IntSupplier shards,
        final ResponseTimes times, final ResponseTimeNames names)
    {
        registry.register(new ShardHistogramCollector(names.histogram(), names.histogramHelp(), shards, "response",
            Arrays.stream(INVITE_RESPONSES).map(InviteResponse::label).toList(),
            (k, v) -> times.of(k, INVITE_RESPONSES[v])));
        GaugeWithCallback.builder().name(names.max())
            .help(names.maxHelp())
            .labelNames("shard", "response")
            .callback(cb ->
            {
                for (int k = 0; k < shards.getAsInt(); k++)
                {
                    for (final InviteResponse kind : INVITE_RESPONSES)
                    {
                        cb.call(times.of(k, kind).maxNs() / NANOS_PER_SECOND, Integer.toString(k), kind.label());
                    }
                }
            }).register(registry);
        CounterWithCallback.builder().name(names.untimed())
            .help(names.untimedHelp())
            .labelNames("shard", "response")
            .callback(cb ->
            {
                for (int k = 0; k < shards.getAsInt(); k++)
                {
                    for (final InviteResponse kind : INVITE_RESPONSES)
                    {
                        cb.call(times.of(k, kind).untimed(), Integer.toString(k), kind.label());
                    }
                }
            }).register(registry);
    }

    private void registerShards()
    {
        CounterWithCallback.builder().name("sipline_sip_messages_dropped")
            .help("Inbound messages dropped, by reason: parse_<error> (the parser's reason; a malformed request is "
                + "answered 400 when it can be), handoff_queue_full (the owning shard's queue was full), declined "
                + "(no transaction or handler took it)")
            .labelNames("shard", "reason")
            .callback(cb ->
            {
                for (int k = 0; k < stack.shardCount(); k++)
                {
                    final String shard = Integer.toString(k);
                    final ShardCounters c = stack.transport().shard(k).snapshot();
                    for (final ParseResult r : PARSE_RESULTS)
                    {
                        if (r.isError())
                        {
                            cb.call(c.parseErrors(r), shard, parseErrorLabel(r));
                        }
                    }
                    cb.call(stack.shard(k).traffic().mirrored(MessageCounters.HANDOFF_DROPS), shard,
                        "handoff_queue_full");
                    cb.call(c.dropped(), shard, "declined");
                }
            }).register(registry);
        udpCounter("sipline_udp_datagrams_received", "UDP datagrams read", ShardCounters::datagramsIn);
        udpCounter("sipline_udp_send_failures",
            "Datagrams that could not be handed to the socket (not writable, too large, no destination)",
            ShardCounters::sendFailures);
        udpCounter("sipline_udp_peer_channels_opened", "Connected UDP channels opened to busy peers",
            ShardCounters::peersOpened);
        udpCounter("sipline_udp_peer_channels_closed", "Connected UDP channels closed (idle, evicted, unreachable)",
            ShardCounters::peersClosed);
        udpCounter("sipline_udp_peer_channel_open_failures", "Connected UDP channels that could not be opened",
            ShardCounters::peerOpenFailures);
        udpCounter("sipline_udp_peers_unreachable", "ICMP port unreachable reports on connected channels "
            + "(RFC 3261 §18.4)", ShardCounters::peersUnreachable);
        udpCounter("sipline_udp_peer_datagrams_received", "Datagrams read on connected UDP channels (part of "
            + "sipline_udp_datagrams_received)", ShardCounters::peerDatagramsIn);
        udpCounter("sipline_udp_peer_datagrams_sent", "Datagrams written on connected UDP channels",
            ShardCounters::peerDatagramsOut);
        counter("sipline_shard_handoffs", "Messages read on this shard for a call of another one and handed over",
            (cb, k, t) -> cb.call(t.mirrored(MessageCounters.HANDOFFS_OUT), k));
        counter("sipline_shard_listener_errors", "Exceptions thrown by the shard's listener, caught",
            (cb, k, t) -> cb.call(t.mirrored(MessageCounters.LISTENER_ERRORS), k));
        GaugeWithCallback.builder().name("sipline_shard_handoff_queue_depth")
            .help("Hand-overs waiting in the shard's queue").labelNames("shard")
            .callback(cb ->
            {
                for (int k = 0; k < stack.shardCount(); k++)
                {
                    cb.call(stack.shard(k).handoffQueueDepth(), Integer.toString(k));
                }
            }).register(registry);
        GaugeWithCallback.builder().name("sipline_shard_up").help("1 while the shard's event loop runs, else 0")
            .labelNames("shard")
            .callback(cb ->
            {
                for (int k = 0; k < stack.shardCount(); k++)
                {
                    cb.call(stack.shard(k).isRunning() ? 1 : 0, Integer.toString(k));
                }
            }).register(registry);
    }

    /** SIP over TCP and TLS: the accepted connections open now ({@code sipline_stream_events} counts the rest). */
    private void registerStreams()
    {
        GaugeWithCallback.builder().name("sipline_stream_connections")
            .help("Accepted TCP and TLS connections open now (TLS handshakes included), over all ports; at most "
                + "--tcp-max-connections")
            .callback(cb -> cb.call(stack.streamConnections())).register(registry);
    }

    /**
     * SIP over WebSocket (RFC 7118): {@code sipline_ws_events_total{event}} from the WebSocket layer's counters
     * (handshakes, refusals by reason, limits, 1009 and 1002 closes, pings, idle closes),
     * {@code sipline_ws_messages_total{event}} for the SIP messages those connections carry, and the open connections.
     */
    private void registerWebSocket()
    {
        CounterWithCallback.builder().name("sipline_ws_events")
            .help("WebSocket listener events, by kind: accepted, upgraded, refusals (no_sip_subprotocol 400, "
                + "origin_refused 403, path_refused 404, bad_handshake), limits (over_max_connections, "
                + "over_max_per_address, handshake_timeouts, too_big 1009, protocol_errors 1002, not_sip, "
                + "idle_closed, message_timeouts 1008), pings and closes")
            .labelNames("event")
            .callback(cb ->
            {
                final WsCounters c = stack.webSocketCounters();
                for (int slot = 0; slot < WsCounters.SLOTS; slot++)
                {
                    cb.call(c.get(slot), WsCounters.name(slot));
                }
            }).register(registry);
        CounterWithCallback.builder().name("sipline_ws_messages")
            .help("SIP messages over WebSocket connections: in (well-formed), parse_errors, dropped, sent, "
                + "send_failures, crlf_pings (RFC 5626 keep-alives answered)")
            .labelNames("event")
            .callback(cb ->
            {
                final TcpCounters c = stack.webSocketMessageCounters();
                cb.call(c.get(TcpCounters.MESSAGES_IN), "in");
                cb.call(c.get(TcpCounters.PARSE_ERRORS), "parse_errors");
                cb.call(c.get(TcpCounters.DROPPED), "dropped");
                cb.call(c.get(TcpCounters.SENT), "sent");
                cb.call(c.get(TcpCounters.SEND_FAILURES), "send_failures");
                cb.call(c.get(TcpCounters.PINGS), "crlf_pings");
            }).register(registry);
        GaugeWithCallback.builder().name("sipline_ws_connections")
            .help("WebSocket connections open now (handshaking or upgraded), over all WS and WSS ports")
            .callback(cb -> cb.call(stack.webSocketConnections())).register(registry);
    }

    /**
     * HEPv3 capture ({@code --hep}): {@code sipline_hep_captures_total{outcome}}, the SIP messages mirrored to the
     * collector ({@code sent}) and those lost ({@code dropped}: the socket's buffer full, a failed send, or a message
     * too long for one HEP packet); absent when capture is off.
     */
    private void registerCapture()
    {
        final io.sipline.sip.capture.HepCapture capture = stack.capture();
        if (null == capture)
        {
            return;
        }
        CounterWithCallback.builder().name("sipline_hep_captures")
            .help("SIP messages mirrored to the HEP collector (sent), or lost to it (dropped: socket buffer full, "
                + "send failed, longer than one HEP packet); SIP itself is never held up")
            .labelNames("outcome")
            .callback(cb ->
            {
                cb.call(capture.sent(), "sent");
                cb.call(capture.dropped(), "dropped");
            }).register(registry);
    }

    /**
     * The media relay's counters ({@code --media-ports}): {@code sipline_media_packets_relayed_total} (RTP and RTCP
     * sent on to the other leg), {@code sipline_media_datagrams_dropped_total{reason}} by {@link RelayDrop} reason,
     * {@code sipline_media_thread_errors_total} (exceptions caught, 0 unless something is wrong),
     * {@code sipline_media_anchors} (anchors not yet ended) and {@code sipline_media_port_pairs} (in use). Registered
     * when the media service starts; the media threads' own counters, read at each scrape.
     *
     * @param media the media service.
     * @param relay its relay.
     */
    public void registerMedia(final MediaService media, final MediaRelay relay)
    {
        CounterWithCallback.builder().name("sipline_media_packets_relayed")
            .help("RTP and RTCP packets the media relay sent on to the other leg of an anchored call")
            .callback(cb -> cb.call(relay.relayed())).register(registry);
        CounterWithCallback.builder().name("sipline_media_datagrams_dropped")
            .help("Datagrams the media relay dropped, by reason: malformed, unsupported-protocol, wrong-source (not "
                + "the latched peer), auth-fail and replay (SRTP/SRTCP), unknown-ssrc (no SRTP stream may be made "
                + "for it), srtp-other, not-ready (no keys yet), no-destination, stun-unexpected and dtls-unexpected "
                + "(on a leg that is not WebRTC), too-large, send-failed, inactive (the stream is closing or its "
                + "handshake failed), and on WebRTC legs stun-unauthenticated (ICE check answered 401), stun-rejected "
                + "(answered 400 or 420), stun-unanswered (malformed, bad FINGERPRINT, not a request) and "
                + "dtls-unchecked (DTLS from an address no valid ICE check came from)")
            .labelNames("reason")
            .callback(cb ->
            {
                for (int r = 0; r < RelayDrop.COUNT; r++)
                {
                    cb.call(relay.drops(r), RelayDrop.name(r));
                }
            }).register(registry);
        CounterWithCallback.builder().name("sipline_media_thread_errors")
            .help("Exceptions caught on the media threads (the first one logged); 0 unless something is wrong: bad "
                + "datagrams are dropped and counted, never thrown")
            .callback(cb -> cb.call(relay.errors())).register(registry);
        GaugeWithCallback.builder().name("sipline_media_anchors")
            .help("Media anchors of calls, not yet ended")
            .callback(cb -> cb.call(media.activeAnchors())).register(registry);
        GaugeWithCallback.builder().name("sipline_media_port_pairs")
            .help("Media port pairs held by the relay's open streams")
            .callback(cb -> cb.call(relay.portPairsInUse())).register(registry);
    }

    /**
     * The grid's counters ({@code --cluster-name}, a grid on the class path): {@code
     * sipline_grid_snapshots_written_total} and {@code sipline_grid_sessions_removed_total} (completed by the grid),
     * {@code sipline_grid_operations_dropped_total} (the writer's queue was full) and {@code
     * sipline_grid_operations_failed_total} (refused or timed out),
     * {@code sipline_grid_calls_adopted_total} (calls of nodes that left, taken over), {@code
     * sipline_grid_bytes_written_total} (keys and values handed to the grid) and, when the grid counts them, {@code
     * sipline_grid_bytes_sent_total} (all the transport sent to the other members). Registered when the node joins the
     * grid; the writer's own counters, read at each scrape.
     *
     * @param grid the node's grid writer.
     */
    public void registerGrid(final GridWriter grid)
    {
        CounterWithCallback.builder().name("sipline_grid_snapshots_written")
            .help("Snapshots of distributable application sessions the grid confirmed written")
            .callback(cb -> cb.call(grid.written())).register(registry);
        CounterWithCallback.builder().name("sipline_grid_sessions_removed")
            .help("Ended application sessions the grid confirmed removed")
            .callback(cb -> cb.call(grid.removed())).register(registry);
        CounterWithCallback.builder().name("sipline_grid_operations_dropped")
            .help("Snapshots and removals dropped because the grid writer's queue was full")
            .callback(cb -> cb.call(grid.dropped())).register(registry);
        CounterWithCallback.builder().name("sipline_grid_operations_failed")
            .help("Snapshots and removals the grid refused or did not complete in time")
            .callback(cb -> cb.call(grid.failed())).register(registry);
        CounterWithCallback.builder().name("sipline_grid_calls_adopted")
            .help("Calls of nodes that left the grid, claimed by this node and handed to its shards")
            .callback(cb -> cb.call(grid.adopted())).register(registry);
        CounterWithCallback.builder().name("sipline_grid_bytes_written")
            .help("Bytes of keys and values this node handed to the grid in writes (snapshots and their index and "
                + "owner entries), before the grid's framing and backup copies")
            .callback(cb -> cb.call(grid.bytesWritten())).register(registry);
        if (grid.bytesSent() >= 0)
        {
            CounterWithCallback.builder().name("sipline_grid_bytes_sent")
                .help("Bytes this node's grid transport sent to the other members: writes to owners and backups, "
                    + "reads, removals, failure detection and membership")
                .callback(cb -> cb.call(grid.bytesSent())).register(registry);
        }
    }

    /**
     * The web engine's requests per application ({@code --http-port}): {@code sipline_http_requests_total
     * {application,status}} by status class, {@code sipline_http_requests_failed_total{application}} for those that
     * ended without a complete response, {@code sipline_http_active_requests{application}}. Registered when the engine
     * starts; the counts are the engine's own, read at each scrape.
     */
    public void registerHttp(final HttpStatus http)
    {
        CounterWithCallback.builder().name("sipline_http_requests")
            .help("HTTP requests answered by the web halves of converged applications, by application and status "
                + "class (application none: no application's context path)")
            .labelNames("application", "status")
            .callback(cb ->
            {
                for (final HttpStatus.Application a : http.applications())
                {
                    for (int i = 0; i < HttpStatus.STATUS_CLASSES.size(); i++)
                    {
                        cb.call(a.responses(i), a.name(), HttpStatus.STATUS_CLASSES.get(i));
                    }
                }
            }).register(registry);
        CounterWithCallback.builder().name("sipline_http_requests_failed")
            .help("HTTP requests that ended without a complete response (an exception past the engine's error "
                + "handling, a broken connection, a timeout), by application")
            .labelNames("application")
            .callback(cb ->
            {
                for (final HttpStatus.Application a : http.applications())
                {
                    cb.call(a.failed(), a.name());
                }
            }).register(registry);
        GaugeWithCallback.builder().name("sipline_http_active_requests")
            .help("HTTP requests being served now, by application")
            .labelNames("application")
            .callback(cb ->
            {
                for (final HttpStatus.Application a : http.applications())
                {
                    cb.call(a.active(), a.name());
                }
            }).register(registry);
    }

    private void registerContainer()
    {
        GaugeWithCallback.builder().name("sipline_application_started")
            .help("1 when the deployed application is started, else 0").labelNames("application")
            .callback(cb ->
            {
                for (final ContainerStatus.Application a : container.applications())
                {
                    cb.call(a.started() ? 1 : 0, a.name());
                }
            }).register(registry);
        GaugeWithCallback.builder().name("sipline_application_sessions_active")
            .help("Live application sessions of the application (omitted when the container does not say)")
            .labelNames("application")
            .callback(cb ->
            {
                for (final ContainerStatus.Application a : container.applications())
                {
                    if (a.sessionsActive() >= 0)
                    {
                        cb.call(a.sessionsActive(), a.name());
                    }
                }
            }).register(registry);
        GaugeWithCallback.builder().name("sipline_sessions_active")
            .help("Live application sessions over every application (omitted when unknown)")
            .callback(cb ->
            {
                final long n = container.sessionsActiveTotal();
                if (n >= 0)
                {
                    cb.call(n);
                }
            }).register(registry);
        registry.register(new ServletTimeCollector(container));
        CounterWithCallback.builder().name("sipline_container_events")
            .help("Container events: servlet_error, slow_call, no_application, stray_2xx (a late 2xx ACKed and ended "
                + "with BYE), routed_out (an initial request the application router sent to an external route), "
                + "overloaded (a new request refused with a stateless 503: it waited longer than --overload-wait, "
                + "a new INVITE past the shard's admission limit, or a REGISTER past its budget)")
            .labelNames("event")
            .callback(cb ->
            {
                for (final ContainerStatus.Event e : container.events())
                {
                    cb.call(e.count(), e.event());
                }
            }).register(registry);
    }

    private void registerJvm()
    {
        final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
        CounterWithCallback.builder().name("sipline_jvm_gc_collections")
            .help("Collections by collector bean (for ZGC and Shenandoah the '... Pauses' bean counts the pauses)")
            .labelNames("collector")
            .callback(cb ->
            {
                for (final GarbageCollectorMXBean gc : collectors)
                {
                    cb.call(Math.max(0, gc.getCollectionCount()), gc.getName());
                }
            }).register(registry);
        CounterWithCallback.builder().name("sipline_jvm_gc_collection_seconds")
            .help("Time spent in collections by collector bean (pauses for the '... Pauses' beans)")
            .labelNames("collector")
            .callback(cb ->
            {
                for (final GarbageCollectorMXBean gc : collectors)
                {
                    cb.call(Math.max(0, gc.getCollectionTime()) / 1_000.0, gc.getName());
                }
            }).register(registry);
        final java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (threads instanceof com.sun.management.ThreadMXBean hotspot && hotspot.isThreadAllocatedMemorySupported()
            && hotspot.isThreadAllocatedMemoryEnabled())
        {
            CounterWithCallback.builder().name("sipline_jvm_allocated_bytes")
                .help("Heap bytes allocated by every thread since start (rate() of it is the allocation rate)")
                .callback(cb ->
                {
                    final long n = hotspot.getTotalThreadAllocatedBytes();
                    if (n >= 0)
                    {
                        cb.call(n);
                    }
                }).register(registry);
        }
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        GaugeWithCallback.builder().name("sipline_jvm_heap_used_bytes").help("Heap in use")
            .callback(cb -> cb.call(memory.getHeapMemoryUsage().getUsed())).register(registry);
        final List<BufferPoolMXBean> pools = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class);
        GaugeWithCallback.builder().name("sipline_jvm_direct_memory_used_bytes")
            .help("Off-heap buffer memory in use: the chunks of Netty's pooled allocators, the shared one and the "
                + "shards' own of outbound buffers (pool=netty), and the JDK's direct ByteBuffers (pool=jdk, which "
                + "counts Netty's chunks again on this JVM)")
            .labelNames("pool")
            .callback(cb ->
            {
                cb.call(stack.pooledDirectMemory(), "netty");
                for (final BufferPoolMXBean pool : pools)
                {
                    if ("direct".equals(pool.getName()))
                    {
                        cb.call(pool.getMemoryUsed(), "jdk");
                    }
                }
            }).register(registry);
        CounterWithCallback.builder().name("sipline_stream_events")
            .help("TCP and TLS connection events: accepted, closed, messages, and each drop or close by reason "
                + "(parse_errors, framing_errors, oversize, idle_closed, errors, dropped, send_failures, tls_failures; "
                + "the limits against abuse: over_max_connections and over_max_per_address refused at the accept, "
                + "message_timeouts for a message not whole within --tcp-message-timeout, too_large for a "
                + "Content-Length beyond the maximum message size)")
            .labelNames("event")
            .callback(cb ->
            {
                final TcpCounters c = stack.streamCounters();
                for (int slot = 0; slot < TcpCounters.SLOTS; slot++)
                {
                    cb.call(c.get(slot), TcpCounters.name(slot));
                }
            }).register(registry);
    }

    /** A per-shard read of the traffic counters for one callback metric. */
    @FunctionalInterface
    private interface ShardRead<C>
    {
        void read(C callback, String shard, MessageCounters traffic);
    }

    private void counter(final String name, final String help, final ShardRead<CounterWithCallback.Callback> read,
        final String... extraLabels)
    {
        CounterWithCallback.builder().name(name).help(help).labelNames(labels(extraLabels))
            .callback(cb ->
            {
                for (int k = 0; k < stack.shardCount(); k++)
                {
                    read.read(cb, Integer.toString(k), stack.shard(k).traffic());
                }
            }).register(registry);
    }

    private void gauge(final String name, final String help, final ShardRead<GaugeWithCallback.Callback> read)
    {
        GaugeWithCallback.builder().name(name).help(help).labelNames("shard")
            .callback(cb ->
            {
                for (int k = 0; k < stack.shardCount(); k++)
                {
                    read.read(cb, Integer.toString(k), stack.shard(k).traffic());
                }
            }).register(registry);
    }

    private static String[] labels(final String... extra)
    {
        final String[] all = new String[1 + extra.length];
        all[0] = "shard";
        System.arraycopy(extra, 0, all, 1, extra.length);
        return all;
    }

    /** A counter per shard read from the UDP transport's counters of that shard. */
    private void udpCounter(final String name, final String help,
        final java.util.function.ToLongFunction<ShardCounters> read)
    {
        CounterWithCallback.builder().name(name).help(help).labelNames("shard")
            .callback(cb -> forEachUdp((k, c) -> cb.call(read.applyAsLong(c), k))).register(registry);
    }

    private void forEachUdp(final java.util.function.BiConsumer<String, ShardCounters> each)
    {
        for (int k = 0; k < stack.transport().shardCount(); k++)
        {
            each.accept(Integer.toString(k), stack.transport().shard(k).snapshot());
        }
    }

    /**
     * {@code sipline_servlet_time_seconds}: the container's servlet time histograms, as given at scrape time (the
     * client has no histogram-with-callback, so this collector builds the snapshot itself).
     */
    private static final class ServletTimeCollector implements Collector
    {
        private static final MetricMetadata METADATA = new MetricMetadata("sipline_servlet_time_seconds",
            "Time of servlet calls (doRequest, doResponse, listeners) on the shard, by application");

        private final ContainerStatus container;

        ServletTimeCollector(final ContainerStatus container)
        {
            this.container = container;
        }

        @Override
        public MetricSnapshot collect()
        {
            final List<HistogramSnapshot.HistogramDataPointSnapshot> points = new ArrayList<>();
            for (final ContainerStatus.ServletTimes t : container.servletTimes())
            {
                points.add(new HistogramSnapshot.HistogramDataPointSnapshot(
                    ClassicHistogramBuckets.of(t.upperBoundsSeconds(), t.counts()), t.sumSeconds(),
                    Labels.of("application", t.application()), null, 0L));
            }
            return new HistogramSnapshot(METADATA, points);
        }

        @Override
        public MetricFamilyDescriptor getMetricFamilyDescriptor()
        {
            return MetricFamilyDescriptor.of(MetricType.HISTOGRAM, METADATA, List.of("application"));
        }
    }

    /** Where one of a shard's histograms is: shard index and the index of a label value to the histogram. */
    @FunctionalInterface
    interface ShardHistograms
    {
        ResponseTimeHistogram of(int shard, int value);
    }

    /**
     * A histogram of the shards' {@link ResponseTimeHistogram}s, one point per shard and value of one label (the
     * INVITE response times by {@code response}, the input lag by {@code path}), built at scrape time from the
     * shards' bucket counters (opaque loads; the count is the sum of the buckets read, so each point is
     * self-consistent).
     */
    private static final class ShardHistogramCollector implements Collector
    {
        private static final double[] UPPER_BOUNDS = ResponseTimeHistogram.upperBoundsSeconds();

        private final MetricMetadata metadata;
        private final IntSupplier shards;
        private final String label;
        private final List<String> values;
        private final ShardHistograms histograms;

        ShardHistogramCollector(final String name, final String help, final IntSupplier shards, final String label,
            final List<String> values, final ShardHistograms histograms)
        {
            this.metadata = new MetricMetadata(name, help);
            this.shards = shards;
            this.label = label;
            this.values = values;
            this.histograms = histograms;
        }

        @Override
        public MetricSnapshot collect()
        {
            final List<HistogramSnapshot.HistogramDataPointSnapshot> points = new ArrayList<>();
            for (int k = 0; k < shards.getAsInt(); k++)
            {
                for (int v = 0; v < values.size(); v++)
                {
                    final ResponseTimeHistogram h = histograms.of(k, v);
                    final long[] counts = h.bucketCounts();
                    points.add(new HistogramSnapshot.HistogramDataPointSnapshot(
                        ClassicHistogramBuckets.of(UPPER_BOUNDS, counts), h.sumNs() / NANOS_PER_SECOND,
                        Labels.of("shard", Integer.toString(k), label, values.get(v)), null, 0L));
                }
            }
            return new HistogramSnapshot(metadata, points);
        }

        @Override
        public MetricFamilyDescriptor getMetricFamilyDescriptor()
        {
            return MetricFamilyDescriptor.of(MetricType.HISTOGRAM, metadata, List.of("shard", label));
        }
    }
}
