'use strict';
// A SIP-over-WebSocket user agent for the end-to-end tests: JsSIP (the browser SIP library) under Node, with the
// ws module as its WebSocket. Prints one event per line on stdout; the Java test reads them.
//
//   node jssip-client.js URL USER DOMAIN CA_FILE|- MODE
//
// MODE register: REGISTER, then un-REGISTER, then exit 0.
// MODE drop:     REGISTER, then exit at once without un-REGISTERing (the binding outlives the connection).
// MODE callee:   REGISTER and stay; an INVITE that arrives over the WebSocket is printed (JsSIP under Node has no
//                WebRTC, so it answers 488 Not Acceptable Here itself); the first one ends the run with exit 0.
// Exit 2 on a refused registration, 3 on the 20 s deadline, 4 on a lost connection.
const fs = require('fs');
const WS = require('ws');

const [url, user, domain, ca, mode] = process.argv.slice(2);
const tls = ca && ca !== '-' ? { ca: fs.readFileSync(ca) } : {};

function out(line) {
  process.stdout.write(line + '\n');
}

// JsSIP looks for the browser's globals: window (for RTCPeerConnection, absent here) and WebSocket.
global.window = global;
global.WebSocket = class extends WS {
  constructor(address, protocols) {
    super(address, protocols, tls);
    this.on('upgrade', (response) => out('UPGRADED ' + response.headers['sec-websocket-protocol']));
    this.on('message', (data) => {
      const text = data.toString();
      if (text.startsWith('INVITE ')) {
        out('INVITE_RECEIVED ' + text.split('\r\n')[0]);
        setTimeout(() => ua.unregister(), 500);
      }
    });
  }
};

const JsSIP = require('jssip');
const ua = new JsSIP.UA({
  sockets: [new JsSIP.WebSocketInterface(url)],
  uri: 'sip:' + user + '@' + domain,
  register: true,
  register_expires: 300,
  connection_recovery_min_interval: 30,
  user_agent: 'JsSIP ' + JsSIP.version + ' (sipline e2e)'
});

let done = false;
function finish(code) {
  if (done) {
    return;
  }
  done = true;
  clearTimeout(deadline);
  ua.stop();
  setTimeout(() => process.exit(code), 200);
}

const deadline = setTimeout(() => {
  out('TIMEOUT');
  process.exit(3);
}, 20000);

ua.on('registered', (e) => {
  out('REGISTERED ' + e.response.status_code + ' ' + e.response.getHeader('Contact'));
  if (mode === 'register') {
    ua.unregister();
  } else if (mode === 'drop') {
    process.exit(0); // the connection goes, the binding stays: the flow is gone
  }
});
ua.on('unregistered', (e) => {
  out('UNREGISTERED ' + (e.response ? e.response.status_code : ''));
  finish(0);
});
ua.on('registrationFailed', (e) => {
  out('REGISTRATION_FAILED ' + e.cause + ' ' + (e.response ? e.response.status_code : ''));
  finish(2);
});
// A session listener makes JsSIP take the INVITE (without one it answers 405); with no RTCPeerConnection in Node it
// then answers 488 Not Acceptable Here.
ua.on('newRTCSession', (e) => out('NEW_SESSION ' + e.originator));
ua.on('disconnected', (e) => {
  if (!done) {
    out('DISCONNECTED ' + (e.code || '') + ' ' + (e.reason || ''));
    finish(4);
  }
});
ua.start();
