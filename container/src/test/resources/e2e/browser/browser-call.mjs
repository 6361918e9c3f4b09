// The browser of the WebRTC gateway end-to-end test: puppeteer-core starts the Debian chromium headless with a fake
// microphone and no permission prompt, loads the gateway's page with ?auto=1 (connect over WebSocket, register, call
// the address given), and reports on stdout, one line each, what the test asserts:
//   CHROMIUM_PID n | ESTABLISHED | BUNDLE local=bool remote=bool (a=group:BUNDLE in each side's description) |
//   ICE state | DTLS state | STATS sent=a received=b lost=c (twice, 5 s apart:
//   at 50 packets/s about 250 more each way, so that the test can ask for over 100 in the window) |
//   CODEC sent=mime/rate/channels received=mime/rate/channels (the audio codec of each direction, from getStats)
//   ENDED ... | FAILED why
// As the caller (the page's URL has call=...) it then hangs up (BYE from the browser); as the callee (answer=1) it
// first says REGISTERED and, once the media checks passed, waits for the far end's BYE. Then it closes the browser.
// With "renegotiate", before hanging up, the caller checks that the far end's own re-INVITE (sent while the first
// STATS are measured) was answered (REOFFERED), puts the call on hold and resumes it (HELD and RESUMED with the
// transceiver's negotiated direction; ONHOLD sent=a received=b: packets in the held second), reports STATS over
// 2 s, restarts ICE with pc.restartIce() and a re-INVITE (RESTARTED remote=old->new local=old->new
// pairs=before->after: the gateway's and the browser's ICE ufrags, once a pair of the new ICE generation is
// selected) and reports STATS over 2 s again.
// Arguments: page URL, bound in ms, caller | callee, [renegotiate].
import puppeteer from "puppeteer-core";

const [url, boundArg, role, renegotiate] = process.argv.slice(2);
const deadline = Date.now() + Number(boundArg || 60000);
const say = (line) => console.log(line);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let browser;
async function until(page, what, condition) {
  while (Date.now() < deadline) {
    const value = await page.evaluate(condition);
    if (value) {
      return value;
    }
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}; page events: ` +
    JSON.stringify(await page.evaluate(() => window.gateway ? window.gateway.events : [])));
}

async function stats(page) {
  return page.evaluate(() => window.gateway.stats());
}

async function window2s(page) {
  let s = await stats(page);
  say(`STATS sent=${s.packetsSent} received=${s.packetsReceived} lost=${s.packetsLost}`);
  await sleep(2000);
  s = await stats(page);
  say(`STATS sent=${s.packetsSent} received=${s.packetsReceived} lost=${s.packetsLost}`);
}

// The far end's re-INVITE, hold and resume (a=sendonly, then a=sendrecv), then an ICE restart; media after each.
async function renegotiateCall(page) {
  await until(page, "the far end's re-INVITE answered", async () => {
    const s = await window.gateway.stats();
    return window.gateway.remoteOffers > 0 && s.signaling === "stable";
  });
  say(`REOFFERED ${(await stats(page)).direction}`);
  await page.evaluate(() => window.gateway.hold());
  await until(page, "the call on hold", () => window.gateway.events.some((e) => e.endsWith(": on hold")));
  const held = await stats(page);
  say(`HELD ${held.direction}`);
  await sleep(1000);
  const stillHeld = await stats(page);
  say(`ONHOLD sent=${stillHeld.packetsSent - held.packetsSent} received=` +
    `${stillHeld.packetsReceived - held.packetsReceived}`);
  await page.evaluate(() => window.gateway.unhold());
  await until(page, "the call resumed", () => window.gateway.events.some((e) => e.endsWith(": off hold")));
  say(`RESUMED ${(await stats(page)).direction}`);
  await window2s(page);
  const before = await stats(page);
  await page.evaluate((n) => { window.gateway.pairsBefore = n; }, before.pairChanges);
  await page.evaluate(() => window.gateway.restartIce());
  // the new checks succeeded once the browser selected a pair of the new ICE generation
  const after = await until(page, "a pair of the new ICE generation", async () => {
    const s = await window.gateway.stats();
    const refused = window.gateway.events.find((e) => e.includes("ICE restart refused"));
    if (refused) {
      return { ...s, remoteUfrag: `refused-${refused.split(" ").pop()}` };
    }
    return window.gateway.events.some((e) => e.endsWith(": ICE restarted")) && s.signaling === "stable" &&
      ["connected", "completed"].includes(s.ice) && s.pairChanges > window.gateway.pairsBefore ? s : null;
  });
  say(`RESTARTED remote=${before.remoteUfrag}->${after.remoteUfrag} local=${before.localUfrag}->` +
    `${after.localUfrag} pairs=${before.pairChanges}->${after.pairChanges}`);
  await window2s(page);
}

try {
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      // the gateway's media address is 127.0.0.1: let WebRTC gather and pair loopback candidates
      "--allow-loopback-in-peer-connection",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
  say(`CHROMIUM_PID ${browser.process().pid}`);
  const page = await browser.newPage();
  page.on("console", (m) => say(`CONSOLE ${m.type()} ${m.text()}`));
  page.on("pageerror", (e) => say(`PAGEERROR ${e.message}`));
  await page.goto(url, { timeout: Math.max(1000, deadline - Date.now()) });
  if (role === "callee") {
    await until(page, "the registration", () => window.gateway?.events.includes("registered"));
    say("REGISTERED");
  }
  await until(page, "the call to be established or to fail", () =>
    ["established", "rejected", "ended", "failed"].includes(window.gateway?.state));
  const state = await page.evaluate(() => window.gateway.state);
  if (state !== "established") {
    throw new Error(`call ${state}: ${await page.evaluate(() => window.gateway.events.join(" | "))}`);
  }
  say("ESTABLISHED");
  const bundle = await stats(page);
  say(`BUNDLE local=${bundle.bundleLocal} remote=${bundle.bundleRemote}`);
  const ice = await until(page, "ICE connected", async () => {
    const s = await window.gateway.stats();
    return ["connected", "completed"].includes(s.ice) ? s.ice : null;
  });
  say(`ICE ${ice}`);
  const dtls = await until(page, "DTLS connected", async () => {
    const s = await window.gateway.stats();
    return s.dtls === "connected" ? s.dtls : null;
  });
  say(`DTLS ${dtls}`);
  await until(page, "the first RTP packets back", async () => (await window.gateway.stats()).packetsReceived > 0);
  let s = await stats(page);
  say(`STATS sent=${s.packetsSent} received=${s.packetsReceived} lost=${s.packetsLost}`);
  await sleep(5000);
  s = await stats(page);
  say(`STATS sent=${s.packetsSent} received=${s.packetsReceived} lost=${s.packetsLost}`);
  say(`CODEC sent=${s.codecSent} received=${s.codecReceived}`);
  if (role !== "callee") {
    if (renegotiate === "renegotiate") {
      await renegotiateCall(page);
    }
    await page.evaluate(() => window.gateway.hangup());
  }
  await until(page, "the end of the call", () => window.gateway.state === "ended");
  say(`ENDED ${await page.evaluate(() => window.gateway.events.join(" | "))}`);
} catch (e) {
  say(`FAILED ${e.message}`);
  process.exitCode = 1;
} finally {
  if (browser) {
    await browser.close().catch(() => browser.process()?.kill("SIGKILL"));
  }
}
