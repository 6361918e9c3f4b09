/**
 * ICE (RFC 8445): the agent ({@link io.sipline.media.ice.IceAgent}: gathering, checks, nomination, consent freshness,
 * restarts, trickle; transport agnostic, with {@link io.sipline.media.ice.UdpEndpoint} as the socket binding and
 * {@link io.sipline.media.ice.IceContext} for what a media thread's agents share), and the data model with its pure
 * functions: candidates ({@link io.sipline.media.ice.IceCandidate}) with
 * priorities ({@link io.sipline.media.ice.IcePriority}) and foundations ({@link io.sipline.media.ice.IceFoundations}),
 * the SDP attributes of RFC 8839 ({@link io.sipline.media.ice.IceSdp}, {@link
 * io.sipline.media.ice.IceSessionAttributes}), check-list formation with pruning and initial states ({@link
 * io.sipline.media.ice.IceCheckList}), limits ({@link io.sipline.media.ice.IceLimits}) and the role-conflict rule
 * ({@link io.sipline.media.ice.IceRoleConflict}); and the first-octet demultiplexing of a media 5-tuple (RFC 7983:
 * STUN, DTLS, TURN ChannelData, RTP, RTCP) by {@link io.sipline.media.ice.MediaDemux}.
 *
 * <p>Everything here is owned by one media thread. Parsing and check-list formation happen once per offer/answer or
 * trickled candidate, never per packet; they may allocate a little (a candidate, its foundation string), and report
 * malformed input with the checked {@link io.sipline.media.ice.IceParseException}. Once connected, the agent allocates
 * nothing per packet (consent checks answered, application data handed over).
 */
package io.sipline.media.ice;
