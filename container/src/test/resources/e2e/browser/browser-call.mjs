// The browser of the WebRTC gateway end-to-end test: puppeteer-core starts the Debian chromium headless with a fake
// microphone and no permission prompt, loads the gateway's page with ?auto=1 (connect over WebSocket, register, call
// the address given), and reports on stdout, one line each, what the test asserts:
//   CHROMIUM_PID n | ESTABLISHED | ICE state | DTLS state | STATS sent=a received=b lost=c (twice, 5 s apart:
//   at 50 packets/s about 250 more each way, so that the test can ask for over 100 in the window)
//   ENDED ... | FAILED why
// As the caller (the page's URL has call=...) it then hangs up (BYE from the browser); as the callee (answer=1) it
// first says REGISTERED and, once the media checks passed, waits for the far end's BYE. Then it closes the browser.
// Arguments: page URL, bound in ms, caller | callee.
import puppeteer from "puppeteer-core";

const [url, boundArg, role] = process.argv.slice(2);
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
  if (role !== "callee") {
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
