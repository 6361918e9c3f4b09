// The page's script: a SIP.js SimpleUser over WebSocket to the server, which registers this browser with the
// webrtc-gateway application, calls a SIP address through it and answers calls coming from SIP phones.
// Query parameters fill the form: ws, user, call; auto=1 connects, registers and, with call, dials at once;
// answer=1 answers incoming calls at once. Hold puts the call on hold and resumes it (a re-INVITE each, a=sendonly
// then a=sendrecv); restartIce calls pc.restartIce() and re-offers with new ICE credentials (RFC 8445 §9).
// window.gateway exposes the call's state and the peer connection's statistics (the end-to-end test reads them).
import { Web } from "./sipjs/lib/index.js";

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
$("ws").value = query.get("ws") || `ws://${location.hostname || "127.0.0.1"}:5066/`;
$("user").value = query.get("user") || $("user").value;
$("target").value = query.get("call") || "";

const gateway = {
  state: "idle",
  events: [],
  response: null,      // the final response to our INVITE: "488 Not Acceptable Here (Warning ...)"
  peerConnection: null,
  user: null,
  remoteOffers: 0,     // offers the far end sent once the call was set up (its re-INVITEs)
  async stats() {
    const pc = gateway.peerConnection;
    const out = { ice: pc ? pc.iceConnectionState : "none", connection: pc ? pc.connectionState : "none",
      dtls: "none", packetsReceived: 0, packetsSent: 0, packetsLost: 0, direction: "none",
      signaling: pc ? pc.signalingState : "none", remoteUfrag: "none", localUfrag: "none", pairChanges: 0,
      bundleLocal: false, bundleRemote: false, codecSent: "none", codecReceived: "none" };
    if (!pc) {
      return out;
    }
    out.direction = pc.getTransceivers().map((t) => t.currentDirection).join(",") || "none";
    const remote = pc.currentRemoteDescription ? pc.currentRemoteDescription.sdp : "";
    out.remoteUfrag = (remote.match(/^a=ice-ufrag:(\S+)/m) || [null, "none"])[1];
    const local = pc.currentLocalDescription ? pc.currentLocalDescription.sdp : "";
    out.localUfrag = (local.match(/^a=ice-ufrag:(\S+)/m) || [null, "none"])[1];
    // RFC 9143: a=group:BUNDLE in this side's description and in the far end's (the gateway leaves it out)
    out.bundleLocal = /^a=group:BUNDLE/m.test(pc.localDescription ? pc.localDescription.sdp : "");
    out.bundleRemote = /^a=group:BUNDLE/m.test(pc.remoteDescription ? pc.remoteDescription.sdp : "");
    const reports = [...(await pc.getStats()).values()];
    // the codec each audio RTP stream carries, as "mimeType/clockRate/channels" (e.g. audio/opus/48000/2)
    const codecs = new Map(reports.filter((r) => r.type === "codec")
      .map((r) => [r.id, `${r.mimeType}/${r.clockRate}/${r.channels || 1}`]));
    reports.forEach((report) => {
      if (report.type === "transport" && report.dtlsState) {
        out.dtls = report.dtlsState;
        out.pairChanges = report.selectedCandidatePairChanges || 0;
      } else if (report.type === "inbound-rtp" && report.kind === "audio") {
        out.packetsReceived += report.packetsReceived || 0;
        out.packetsLost += report.packetsLost || 0;
        out.codecReceived = codecs.get(report.codecId) || out.codecReceived;
      } else if (report.type === "outbound-rtp" && report.kind === "audio") {
        out.packetsSent += report.packetsSent || 0;
        out.codecSent = codecs.get(report.codecId) || out.codecSent;
      }
    });
    return out;
  },
  hangup: () => hangup(),
  hold: () => user().hold(),
  unhold: () => user().unhold(),
  restartIce: () => restartIce(),
};
window.gateway = gateway;

function show(state, detail) {
  gateway.state = state;
  gateway.events.push(detail ? `${state}: ${detail}` : state);
  $("state").textContent = detail ? `${state} (${detail})` : state;
  const line = document.createElement("div");
  line.textContent = `${new Date().toISOString().substring(11, 23)} ${state}${detail ? ": " + detail : ""}`;
  $("log").appendChild(line);
  $("log").scrollTop = $("log").scrollHeight;
}

function watch() {
  const pc = gateway.user?.session?.sessionDescriptionHandler?.peerConnection;
  if (!pc || pc === gateway.peerConnection) {
    return;
  }
  gateway.peerConnection = pc;
  pc.addEventListener("iceconnectionstatechange", () => show(gateway.state, `ICE ${pc.iceConnectionState}`));
  pc.addEventListener("connectionstatechange", () => show(gateway.state, `DTLS/ICE ${pc.connectionState}`));
  pc.addEventListener("signalingstatechange", () => {
    if (pc.signalingState === "have-remote-offer" && pc.currentRemoteDescription) {
      gateway.remoteOffers++;
      show(gateway.state, "re-offer received");
    }
  });
}

function user() {
  if (gateway.user) {
    return gateway.user;
  }
  const name = $("user").value.trim() || "browser";
  const host = new URL($("ws").value).hostname;
  gateway.user = new Web.SimpleUser($("ws").value, {
    aor: `sip:${name}@${host}`,
    media: { constraints: { audio: true, video: false }, remote: { audio: $("remote") } },
    userAgentOptions: {
      displayName: name,
      logLevel: query.get("log") || "warn",
      // no STUN server: the gateway is ICE-lite and reachable at the address it offers
      sessionDescriptionHandlerFactoryOptions: { peerConnectionConfiguration: { iceServers: [] },
        iceGatheringTimeout: 1000 },
    },
    delegate: {
      onServerConnect: () => show("connected"),
      onServerDisconnect: (error) => show("disconnected", error ? error.message : ""),
      onRegistered: () => show("registered"),
      onUnregistered: () => show("unregistered"),
      onCallCreated: () => { watch(); show("calling"); },
      onCallReceived: () => {
        $("answer").disabled = false;
        show("ringing", "incoming call");
        if (query.get("answer") === "1") {
          answer();
        }
      },
      onCallAnswered: () => { watch(); show("established"); },
      // called with the state in force once the far end accepted (or refused) the hold or resume re-INVITE
      onCallHold: (held) => {
        $("hold").textContent = held ? "Resume" : "Hold";
        show(gateway.state, held ? "on hold" : "off hold");
      },
      onCallHangup: () => { $("answer").disabled = true; show("ended", gateway.response || ""); },
    },
  });
  return gateway.user;
}

async function connect() {
  try {
    const u = user();
    if (!u.isConnected()) {
      await u.connect();
    }
    await u.register();
  } catch (e) {
    show("failed", e.message);
  }
}

async function call() {
  const target = $("target").value.trim();
  if (!target) {
    show("failed", "no address to call");
    return;
  }
  try {
    const u = user();
    if (!u.isConnected()) {
      await u.connect();
    }
    gateway.response = null;
    await u.call(target, undefined, { requestDelegate: {
      onAccept: (response) => { gateway.response = `${response.message.statusCode} ${response.message.reasonPhrase}`; },
      onReject: (response) => {
        const warning = response.message.getHeader("Warning");
        gateway.response = `${response.message.statusCode} ${response.message.reasonPhrase}` +
          (warning ? ` (${warning})` : "");
        show("rejected", gateway.response);
      },
    } });
    watch();
  } catch (e) {
    show("failed", e.message);
  }
}

async function answer() {
  try {
    await user().answer();
    watch();
  } catch (e) {
    show("failed", e.message);
  }
}

async function toggleHold() {
  try {
    const u = user();
    await (u.isHeld() ? u.unhold() : u.hold());
  } catch (e) {
    show("failed", e.message);
  }
}

// An ICE restart as an application of the WebRTC API asks for one: pc.restartIce() (RFC 8839 §4.4.1.1.1: the next
// offer carries a new ice-ufrag and ice-pwd), then a re-INVITE with that offer. The gateway answers with new
// credentials of its own and keeps the DTLS association; the media moves to the pair the new checks select.
async function restartIce() {
  const session = gateway.user?.session;
  const pc = gateway.peerConnection;
  if (!session || !pc) {
    throw new Error("no call");
  }
  pc.restartIce();
  await session.invite({ requestDelegate: {
    onAccept: () => show(gateway.state, "ICE restarted"),
    onReject: (response) => show(gateway.state, `ICE restart refused: ${response.message.statusCode}`),
  } });
}

async function hangup() {
  try {
    if (gateway.user?.session) {
      await gateway.user.hangup();
    }
  } catch (e) {
    show("failed", e.message);
  }
}

$("connect").addEventListener("click", connect);
$("call").addEventListener("click", call);
$("answer").addEventListener("click", answer);
$("hangup").addEventListener("click", hangup);
$("hold").addEventListener("click", toggleHold);
setInterval(async () => {
  if (gateway.peerConnection) {
    const s = await gateway.stats();
    $("media").textContent = `ICE ${s.ice}, DTLS ${s.dtls}, packets sent ${s.packetsSent}, received ${s.packetsReceived}`;
  }
}, 1000);

if (query.get("auto") === "1") {
  (async () => {
    await connect();
    if ($("target").value.trim()) {
      await call();
    }
  })();
}
