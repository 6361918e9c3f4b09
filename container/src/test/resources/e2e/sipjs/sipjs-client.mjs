// A SIP-over-WebSocket user agent that places and takes calls for the end-to-end tests: SIP.js under Node, with the
// ws module as its WebSocket and, instead of WebRTC (absent under Node), a session description handler that offers
// and answers a plain audio SDP (SIP.js's documented sessionDescriptionHandlerFactory option). Prints one event per
// line on stdout; the Java test reads them.
//
//   node sipjs-client.mjs URL USER DOMAIN CA_FILE|- MODE [TARGET]
//
// MODE callee: REGISTER (prints REGISTERED <status>); the first INVITE is answered 200 with an SDP answer
//              (ESTABLISHED once the ACK came), the caller's BYE ends it (BYE_RECEIVED, TERMINATED); then
//              un-REGISTER and exit 0.
// MODE caller: INVITE TARGET with an SDP offer; once established (ESTABLISHED), BYE (TERMINATED, then
//              BYE_ANSWERED <status>) and exit 0 on its 2xx, 6 otherwise. A final response other than 2xx to the
//              INVITE prints REJECTED <status> and exits 5.
// Exit 2 on a refused registration, 3 on the deadline, 4 on a lost connection.
import fs from 'node:fs';
import WS from 'ws';
import { Inviter, Registerer, SessionState, UserAgent } from 'sip.js';

const [url, user, domain, ca, mode, target] = process.argv.slice(2);
const tls = ca && ca !== '-' ? { ca: fs.readFileSync(ca) } : {};
const DEADLINE_MS = 25000;

function out(line) {
  process.stdout.write(line + '\n');
}

// SIP.js opens its connection with the browser's global WebSocket(url, 'sip').
globalThis.WebSocket = class extends WS {
  constructor(address, protocols) {
    super(address, protocols, tls);
    this.on('upgrade', (response) => out('UPGRADED ' + response.headers['sec-websocket-protocol']));
  }
};

// The offer/answer of a plain RTP audio session (RFC 3264), with no media engine behind it.
class PlainSdp {
  constructor() {
    this.remote = undefined;
    this.closed = false;
  }

  sdp() {
    const id = Date.now() % 1000000;
    return 'v=0\r\no=sipjs ' + id + ' ' + id + ' IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n'
      + 'm=audio 40000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=sendrecv\r\n';
  }

  getDescription() {
    return this.closed ? Promise.reject(new Error('closed'))
      : Promise.resolve({ body: this.sdp(), contentType: 'application/sdp' });
  }

  setDescription(sdp) {
    if (!sdp.startsWith('v=0')) {
      return Promise.reject(new Error('not an SDP: ' + sdp));
    }
    this.remote = sdp;
    out('SDP_RECEIVED');
    return Promise.resolve();
  }

  hasDescription(contentType) {
    return contentType === 'application/sdp';
  }

  rollbackDescription() {
    return Promise.resolve();
  }

  sendDtmf() {
    return false;
  }

  close() {
    this.closed = true;
  }
}

let done = false;
let byeSent = false;
let registerer;
const deadline = setTimeout(() => {
  out('TIMEOUT');
  finish(3);
}, DEADLINE_MS);

function finish(code) {
  if (done) {
    return;
  }
  done = true;
  clearTimeout(deadline);
  ua.stop().finally(() => setTimeout(() => process.exit(code), 200));
}

function follow(session, onEstablished) {
  session.stateChange.addListener((state) => {
    if (state === SessionState.Established) {
      out('ESTABLISHED');
      onEstablished();
    } else if (state === SessionState.Terminated) {
      out('TERMINATED');
      if (mode === 'callee') {
        registerer.unregister().finally(() => setTimeout(() => finish(0), 300));
      } else if (!byeSent) {
        finish(0);
      } // else the BYE's response ends the run

    }
  });
}

const ua = new UserAgent({
  uri: UserAgent.makeURI('sip:' + user + '@' + domain),
  transportOptions: { server: url, connectionTimeout: 10 },
  sessionDescriptionHandlerFactory: () => new PlainSdp(),
  userAgentString: 'SIP.js/0.21.2 (sipline e2e)',
  logBuiltinEnabled: false,
  delegate: {
    onDisconnect: (error) => {
      if (error && !done) {
        out('DISCONNECTED ' + error.message);
        finish(4);
      }
    },
    onInvite: (invitation) => {
      out('INVITE_RECEIVED ' + invitation.request.ruri + ' via ' + invitation.request.getHeader('Via')
        + ' contact ' + invitation.request.getHeader('Contact'));
      invitation.delegate = { onBye: () => out('BYE_RECEIVED') };
      follow(invitation, () => {});
      invitation.accept().catch((e) => out('ACCEPT_FAILED ' + e.message));
    }
  }
});

await ua.start();
if (mode === 'callee') {
  registerer = new Registerer(ua, { expires: 300 });
  registerer.register({
    requestDelegate: {
      onAccept: (response) => out('REGISTERED ' + response.message.statusCode + ' '
        + response.message.getHeader('Contact')),
      onReject: (response) => {
        out('REFUSED ' + response.message.statusCode);
        finish(2);
      }
    }
  });
} else if (mode === 'caller') {
  const inviter = new Inviter(ua, UserAgent.makeURI(target));
  follow(inviter, () => setTimeout(() => {
    byeSent = true;
    inviter.bye({
      requestDelegate: {
        onAccept: (response) => {
          out('BYE_ANSWERED ' + response.message.statusCode);
          finish(0);
        },
        onReject: (response) => {
          out('BYE_ANSWERED ' + response.message.statusCode);
          finish(6);
        }
      }
    });
  }, 300));
  inviter.invite({
    requestDelegate: {
      onAccept: (response) => out('ANSWERED ' + response.message.statusCode + ' contact '
        + response.message.getHeader('Contact')),
      onReject: (response) => {
        out('REJECTED ' + response.message.statusCode);
        finish(5);
      }
    }
  });
} else {
  out('USAGE unknown mode ' + mode);
  finish(1);
}
