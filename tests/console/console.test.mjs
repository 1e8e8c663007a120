// The operator console in a real browser: Debian's Chromium, headless,
// driven by playwright-core, against the built rtb-bidder on 127.0.0.1.
//
// Starts the bidder on an embedded store in a temp dir (seeded profiles,
// telemetry every second, one operator whose hash rtb-passwd made), runs an
// 8 s rtb-load, wins two bids for a device of its own (win and billing
// notices), then in the browser: the console refuses data before login,
// shows the error of a wrong password, logs in, shows the campaigns and a
// campaign's charts with data points, a device's events, erases the device
// and follows the erasure's steps, logs out (the API then answers 401, the old
// cookie included, and the page shows the login form) and logs out
// everywhere. A screenshot per step goes to RTB_ARTIFACTS_DIR.
//
// Environment (CTest sets all but the last two):
//   RTB_BIDDER, RTB_PASSWD, RTB_LOAD, RTB_SEED_PROFILES   the built binaries
//   RTB_EXAMPLE_CONFIG                                     config/bidder.example.json
//   RTB_DEFAULT_ARTIFACTS_DIR                              where screenshots go by default
//   RTB_ARTIFACTS_DIR                                      overrides it
//   RTB_CHROMIUM                                           default /usr/bin/chromium
// Without Chromium or node_modules the test is skipped (exit 77), except
// under CI=true, where that is a failure.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const kChromium = process.env.RTB_CHROMIUM || '/usr/bin/chromium';
const kInCi = process.env.CI === 'true';
const kSkip = 77;

function unavailable(reason) {
  if (kInCi) {
    console.error(`console browser test: ${reason} (CI=true: a failure, not a skip)`);
    process.exit(1);
  }
  console.error(`console browser test skipped: ${reason}`);
  process.exit(kSkip);
}

if (!existsSync(kChromium)) unavailable(`no Chromium at ${kChromium} (deploy/install-deps.sh installs it)`);
if (!existsSync(path.join(here, 'node_modules', 'playwright-core'))) {
  unavailable(`no node_modules in ${here} (run npm ci there; deploy/install-deps.sh does)`);
}
const binaries = {};
for (const name of ['RTB_BIDDER', 'RTB_PASSWD', 'RTB_LOAD', 'RTB_SEED_PROFILES', 'RTB_EXAMPLE_CONFIG']) {
  binaries[name] = process.env[name];
  if (!binaries[name] || !existsSync(binaries[name])) {
    console.error(`console browser test: ${name} is not set to an existing file`);
    process.exit(1);
  }
}
const { chromium } = await import('playwright-core');

const artifacts = path.resolve(process.env.RTB_ARTIFACTS_DIR || process.env.RTB_DEFAULT_ARTIFACTS_DIR ||
                               path.join(here, 'artifacts'));
mkdirSync(artifacts, { recursive: true });

const kUser = 'console-test';
const kPassword = randomBytes(18).toString('base64url');
// A device of the test's own: it wins bids, so it has events to look up.
const kDevice = randomUUID();
const kDevices = 2000;
// The campaign the test device's bids go to (the load bids on it too).
const kCampaign = 'northwind-travel-display';

const work = mkdtempSync(path.join(tmpdir(), 'rtb-console-test-'));
const env = {
  ...process.env,
  RTB_DEVICE_KEY_SECRET: randomBytes(32).toString('hex'),
  RTB_BEACON_SECRET: randomBytes(32).toString('hex'),
};
let bidder = null;
let bidderExit = null;
let base = '';
let context = null;
let page = null;
let broken = false;
let shot = 0;
// Session tokens seen, to look for in the bidder's log.
const tokens = [];
// Uncaught exceptions and CSP refusals on the page.
const pageProblems = [];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls `probe` until it returns a truthy value, for at most `ms`.
async function eventually(what, probe, ms = 30000, every = 250) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (e) {
      last = e;
    }
    await sleep(every);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

async function screenshot(name) {
  if (!page) return;
  shot += 1;
  const file = path.join(artifacts, `${String(shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true }).catch(() => {});
}

// One step of the walk-through; after a failure the rest are skipped, so
// one broken step does not cascade into a string of timeouts.
function step(name, body) {
  test(name, { timeout: 120000 }, async (t) => {
    if (broken) {
      t.skip('an earlier step failed');
      return;
    }
    try {
      await body();
    } catch (e) {
      broken = true;
      await screenshot(`failed-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
      throw e;
    }
  });
}

function run(file, args, { input, timeoutMs = 120000 } = {}) {
  const result = spawnSync(file, args, { input, env, encoding: 'utf8', timeout: timeoutMs });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`${path.basename(file)} exited ${result.status}: ${result.stderr.slice(-2000)}`);
  }
  return result.stdout;
}

// Bid request templates for rtb-load (it sets id and device.ifa): a site
// banner and an app banner, which different example campaigns bid on.
function siteBanner(id, device) {
  return {
    id, at: 1, tmax: 1000, cur: ['USD'],
    imp: [{ id: '1', bidfloor: 0.05, banner: { w: 300, h: 250 } }],
    site: { id: 'site-1', domain: 'news.example', page: 'https://news.example/today.html', cat: ['IAB12'],
            publisher: { id: 'pub-1', domain: 'news.example' } },
    device: { ifa: device, devicetype: 2, geo: { country: 'USA' } },
    user: { id: 'exchange-user-1' },
  };
}
function appBanner(id, device) {
  return {
    id, at: 1, tmax: 1000, cur: ['USD'],
    imp: [{ id: '1', bidfloor: 0.05, banner: { w: 320, h: 50 } }],
    app: { id: 'app-1', bundle: 'com.example.reader', cat: ['IAB19'], publisher: { id: 'pub-2' } },
    device: { ifa: device, devicetype: 4, os: 'Android', geo: { country: 'USA' } },
  };
}

function bidderLog() {
  try {
    return readFileSync(path.join(work, 'bidder.log'), 'utf8');
  } catch {
    return '';
  }
}

async function api(pathname, { method = 'GET', cookie, body, csrf } = {}) {
  const headers = {};
  if (cookie) headers.Cookie = cookie;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (csrf) headers['X-CSRF-Token'] = csrf;
  const response = await fetch(base + pathname, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15000),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

// Wins one bid for kDevice: bid request, then the win and billing notices
// with the exchange's macros filled in. True when a bid came back.
async function winOneBid(n) {
  const request = siteBanner(`console-test-${n}`, kDevice);
  const response = await fetch(`${base}/openrtb2/bid`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request),
    signal: AbortSignal.timeout(15000),
  });
  if (response.status !== 200) {
    await response.arrayBuffer();
    return false;
  }
  const answer = await response.json();
  const bid = answer.seatbid[0].bid[0];
  const macros = {
    AUCTION_ID: request.id, AUCTION_IMP_ID: bid.impid, AUCTION_BID_ID: bid.id,
    AUCTION_PRICE: String(Math.round(bid.price * 0.8 * 1000) / 1000), AUCTION_CURRENCY: answer.cur || 'USD',
  };
  const fill = (url) => url.replace(/(?:\$\{|%24%7B)([A-Z_]+)(?:\}|%7D)/gi, (m, name) =>
    encodeURIComponent(macros[name.toUpperCase()] ?? m));
  for (const url of [bid.nurl, bid.burl]) {
    if (!url) continue;
    const beacon = await fetch(fill(url), { signal: AbortSignal.timeout(15000) });
    await beacon.arrayBuffer();
    assert.ok(beacon.status >= 200 && beacon.status < 300, `beacon ${url.split('?')[0]} answered ${beacon.status}`);
  }
  return true;
}

// What the page itself gets from the API with its cookie.
function pageFetchStatus(pathname) {
  return page.evaluate(async (p) => (await fetch(p, { credentials: 'same-origin' })).status, pathname);
}

async function login(password) {
  await page.fill('#login-user', kUser);
  await page.fill('#login-password', password);
  await page.click('#login-submit');
}

before(async () => {
  const hash = run(binaries.RTB_PASSWD, [], { input: `${kPassword}\n` }).trim();
  assert.match(hash, /^\$argon2id\$/);

  const config = JSON.parse(readFileSync(binaries.RTB_EXAMPLE_CONFIG, 'utf8'));
  config.server.listen_address = '127.0.0.1';
  config.server.port = 0;
  config.server.io_threads = 2;
  config.server.graceful_shutdown_timeout_ms = 2000;
  config.storage.embedded.path = path.join(work, 'store');
  config.storage.embedded.block_cache_mib = 32;
  config.telemetry.enabled = true;
  config.telemetry.write_interval_s = 1;
  config.pacing.flush_interval_ms = 1000;
  config.sessions.operators = [{ user: kUser, password_hash: hash }];
  config.sessions.cookie_secure = false;
  const configFile = path.join(work, 'bidder.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));

  const requests = path.join(work, 'requests');
  mkdirSync(requests);
  writeFileSync(path.join(requests, 'site-banner.json'), JSON.stringify(siteBanner('x', 'x')));
  writeFileSync(path.join(requests, 'app-banner.json'), JSON.stringify(appBanner('x', 'x')));

  run(binaries.RTB_SEED_PROFILES, ['--config', configFile, '--devices', String(kDevices), '--hit-share', '0.5']);

  const portFile = path.join(work, 'bidder.port');
  const log = path.join(work, 'bidder.log');
  const logFd = openSync(log, 'w');
  bidder = spawn(binaries.RTB_BIDDER, ['--config', configFile, '--port-file', portFile],
                 { env, stdio: ['ignore', logFd, logFd] });
  bidder.on('exit', (code, signal) => { bidderExit = { code, signal }; });
  // However this process ends, the bidder does not outlive it.
  process.on('exit', () => { if (!bidderExit) bidder.kill('SIGKILL'); });
  const port = await eventually('the bidder to write its port', () => {
    if (bidderExit) throw new Error(`the bidder exited (${JSON.stringify(bidderExit)}): ${bidderLog().slice(-2000)}`);
    const text = existsSync(portFile) ? readFileSync(portFile, 'utf8').trim() : '';
    return /^\d+$/.test(text) ? text : null;
  }, 30000, 100);
  base = `http://127.0.0.1:${port}`;
  await eventually('/readyz', async () => (await fetch(`${base}/readyz`)).status === 200, 30000, 200);

  // The counters' first sample (a second after the start) falls in a 5 s
  // chart step before the load's, and the load spans more than one step, so
  // the charts show it as rates.
  const firstStepAfterSample = Math.ceil((Date.now() + 1200) / 5000) * 5000;
  await sleep(firstStepAfterSample + 200 - Date.now());
  const loadReport = run(binaries.RTB_LOAD, [
    '--port', port, '--rate', '200', '--duration', '8', '--warmup', '1', '--drain', '1',
    '--connections', '4', '--requests', requests, '--devices', String(kDevices),
  ], { timeoutMs: 60000 });
  writeFileSync(path.join(artifacts, 'rtb-load.json'), loadReport);

  let won = 0;
  const bidDeadline = Date.now() + 30000;
  for (let n = 0; n < 40 && won < 2 && Date.now() < bidDeadline; n++) {
    if (await winOneBid(n)) won += 1;
    else await sleep(250);
  }
  assert.ok(won >= 1, 'no bid for the test device in 40 requests');

  const userDataDir = mkdtempSync(path.join(work, 'chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: kChromium,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
    timeout: 60000,
  });
  context.setDefaultTimeout(20000);
  page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (e) => pageProblems.push(`uncaught: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) pageProblems.push(m.text());
  });
});

after(async () => {
  if (context) await context.close().catch(() => {});
  if (bidder && !bidderExit) {
    bidder.kill('SIGTERM');
    await eventually('the bidder to stop', () => bidderExit, 15000, 100).catch(() => bidder.kill('SIGKILL'));
  }
  const log = bidderLog();
  if (log) writeFileSync(path.join(artifacts, 'bidder.log'), log);
  if (existsSync(path.join(work, 'bidder.json'))) copyFileSync(path.join(work, 'bidder.json'), path.join(artifacts, 'bidder.json'));
  rmSync(work, { recursive: true, force: true });
  console.log(`console browser test: screenshots and logs in ${artifacts}`);
});

step('the API refuses data without a session', async () => {
  for (const [method, pathname, body] of [['GET', '/api/campaigns'], ['GET', '/api/session'],
    ['POST', '/api/query', { start: '1h-ago', queries: [{ aggregator: 'sum', metric: 'bidder_bids_total' }] }],
    ['GET', `/api/devices/${encodeURIComponent(kDevice)}/events?limit=5`]]) {
    const answer = await api(pathname, { method, body });
    assert.equal(answer.status, 401, `${method} ${pathname} without a session`);
    assert.equal(answer.headers.get('cache-control'), 'no-store', `${pathname} Cache-Control`);
  }
});

step('the console opens on the login form and shows no data', async () => {
  const response = await page.goto(`${base}/console`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-security-policy'] || '', /default-src 'self'/);
  await page.waitForSelector('#login:not([hidden])');
  assert.equal(await page.isVisible('#home'), false);
  assert.equal(await pageFetchStatus('/api/campaigns'), 401);
  await screenshot('login');
});

step('a wrong password shows the error and no session', async () => {
  await login(`${kPassword}-wrong`);
  await page.waitForFunction(() => document.getElementById('login-error').textContent.trim() !== '');
  const message = await page.textContent('#login-error');
  assert.match(message, /invalid user or password/i);
  assert.equal(await page.inputValue('#login-password'), '', 'the password field is cleared');
  assert.equal(await page.isVisible('#home'), false);
  await screenshot('wrong-password');
});

step('the right password shows the campaigns table', async () => {
  await login(kPassword);
  await page.waitForSelector('#home:not([hidden])');
  assert.equal(await page.textContent('#who'), kUser);
  const config = JSON.parse(readFileSync(path.join(work, 'bidder.json'), 'utf8'));
  await page.waitForFunction((n) => document.querySelectorAll('#campaigns-body tr[data-campaign-id]').length === n,
                             config.campaigns.length);
  const ids = await page.$$eval('#campaigns-body tr[data-campaign-id]', (rows) => rows.map((r) => r.dataset.campaignId));
  assert.deepEqual(ids, config.campaigns.map((c) => c.id));
  const row = await page.$$eval('#campaigns-body tr[data-campaign-id="northwind-travel-display"] td',
                                (cells) => cells.map((c) => c.textContent.trim()));
  assert.match(row[2], /\$250\.00/, 'daily budget');
  assert.match(row[5], /^(open|throttled|stopped|fail-safe)$/, 'pacing state');
  assert.match(row[6], /^\d+ %$/, 'throttle');
  // The won bids' spend reaches the pacing loop and the table.
  await eventually('northwind\'s spend today above zero', async () => {
    await page.click('#campaigns-refresh');
    await sleep(300);
    const spend = await page.textContent('#campaigns-body tr[data-campaign-id="northwind-travel-display"] td:nth-child(4)');
    return /[1-9]/.test(spend) ? spend : null;
  }, 30000, 1000);
  assert.equal(await page.evaluate(() => localStorage.length + sessionStorage.length), 0);
  await screenshot('campaigns');
});

step('a campaign\'s charts render with data points from the load', async () => {
  const campaign = kCampaign;
  await page.click(`#campaigns-body tr[data-campaign-id="${campaign}"] button[data-action="charts"]`);
  await page.waitForFunction((c) => document.getElementById('charts').dataset.campaign === c, campaign);
  // The series are written every second, the chart has a point per 5 s
  // step; a refresh picks up what arrived.
  // The load sends this campaign tens of bids a second; the test's own
  // bids alone stay under one.
  await eventually('a bid-rate chart of 3 points, one of the load\'s', async () => {
    await page.click('#campaigns-refresh');
    await sleep(500);
    return page.evaluate(() => {
      const figure = document.getElementById('chart-bid-rate');
      const dots = [...figure.querySelectorAll('svg[data-series-points] circle.dot')];
      return figure.dataset.state === 'data' && dots.length >= 3 && dots.some((d) => Number(d.dataset.v) >= 5);
    });
  }, 60000, 2000);
  const svg = await page.$eval('#chart-bid-rate svg', (s) => ({
    points: Number(s.dataset.seriesPoints),
    dots: s.querySelectorAll('circle.dot').length,
    line: s.querySelector('path.line')?.getAttribute('d') || '',
    label: s.getAttribute('aria-label'),
  }));
  assert.ok(svg.points >= 1 && svg.dots === svg.points, `points ${svg.points}, dots ${svg.dots}`);
  assert.match(svg.line, /^M[\d.]+,[\d.]+/);
  assert.match(svg.label, /Bid rate: \d+ points/);
  assert.equal(await page.$eval('#chart-latency', (f) => f.dataset.state), 'data', 'p99 latency has points');
  // Wins and spend draw whenever the telemetry store has two samples of
  // them (a rate needs two); until then the chart says there is no data.
  // The samples are counted first, the charts redrawn after: they can only
  // have more.
  const samples = {};
  for (const metric of ['bidder_wins_total', 'bidder_spend_micros_total']) {
    samples[metric] = await page.evaluate(async ([m, c]) => {
      const response = await fetch('/api/query', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ start: '15m-ago', queries: [{ aggregator: 'sum', metric: m, tags: { campaign: c }, downsample: '5s-max' }] }),
      });
      const answer = await response.json();
      return Array.isArray(answer) && answer.length ? Object.keys(answer[0].dps).length : 0;
    }, [metric, campaign]);
  }
  const drawn = Number(await page.$eval('#charts', (c) => c.dataset.drawn));
  await page.click('#campaigns-refresh');
  await page.waitForFunction((n) => Number(document.getElementById('charts').dataset.drawn) > n, drawn);
  for (const [id, metric] of [['chart-win-rate', 'bidder_wins_total'], ['chart-spend', 'bidder_spend_micros_total']]) {
    const state = await page.$eval(`#${id}`, (f) => f.dataset.state);
    if (samples[metric] >= 2) assert.equal(state, 'data', `${id} with ${samples[metric]} samples of ${metric}`);
    else assert.ok(state === 'data' || state === 'empty', `${id} is ${state}`);
  }
  await page.locator('#charts').scrollIntoViewIfNeeded();
  await screenshot('charts');
});

step('a device\'s recent events', async () => {
  await page.fill('#events-device', kDevice);
  await page.fill('#events-limit', '20');
  await page.click('#events-submit');
  await page.waitForFunction(() => !document.getElementById('events-summary').hidden);
  const types = await page.$$eval('#events-body tr', (rows) => rows.map((r) => r.dataset.eventType));
  assert.ok(types.length >= 1, 'the device has events');
  assert.ok(types.includes('impression') || types.includes('win'), `event types ${types}`);
  await page.locator('#device-events').scrollIntoViewIfNeeded();
  await screenshot('device-events');
});

step('privacy erasure shows its steps', async () => {
  await page.fill('#erasure-device', kDevice);
  await page.click('#erasure-submit');
  assert.match(await page.textContent('#erasure-error'), /confirm/i, 'unconfirmed erasure is refused');
  await page.check('#erasure-confirm');
  await page.click('#erasure-submit');
  await page.waitForSelector('#erasure-status:not([hidden])');
  const steps = await page.$$eval('#erasure-steps li', (items) => items.map((li) => [li.dataset.step, li.dataset.done]));
  assert.deepEqual(steps.map(([s]) => s), ['requested', 'tombstoned', 'major_compacted', 'prior_snapshots_expired']);
  assert.deepEqual(steps.slice(0, 2).map(([, d]) => d), ['true', 'true']);
  assert.equal(await page.inputValue('#erasure-device'), '', 'the id is cleared once the erasure is accepted');
  // The erased device has no events left.
  await page.click('#events-submit');
  await page.waitForFunction(() => document.getElementById('events-summary').dataset.count === '0');
  await page.locator('#erasure').scrollIntoViewIfNeeded();
  await screenshot('erasure');
});

step('logout: the API answers 401, the old cookie included, and the login form is back', async () => {
  const cookies = await context.cookies(base);
  const session = cookies.find((c) => c.name === 'rtb_session');
  assert.ok(session && session.httpOnly, 'an HttpOnly session cookie');
  assert.equal(session.sameSite, 'Strict');
  tokens.push(session.value);
  await page.click('#logout');
  await page.waitForSelector('#login:not([hidden])');
  assert.equal(await page.isVisible('#home'), false);
  assert.equal(await page.$$eval('#campaigns-body tr', (r) => r.length), 0, 'no campaign data left on the page');
  assert.equal(await pageFetchStatus('/api/campaigns'), 401);
  const replay = await api('/api/campaigns', { cookie: `rtb_session=${session.value}` });
  assert.equal(replay.status, 401, 'the revoked cookie is refused');
  assert.match(await page.textContent('#notice'), /Logged out/);
  await screenshot('logged-out');
  await page.reload();
  await page.waitForSelector('#login:not([hidden])');
  assert.equal(await page.isVisible('#home'), false, 'a reload stays logged out');
});

step('logout everywhere revokes the other sessions too', async () => {
  const other = await api('/api/login', { method: 'POST', body: { user: kUser, password: kPassword } });
  assert.equal(other.status, 200);
  const otherCookie = other.headers.get('set-cookie').split(';')[0];
  tokens.push(otherCookie.slice(otherCookie.indexOf('=') + 1));
  await login(kPassword);
  await page.waitForSelector('#home:not([hidden])');
  assert.equal((await api('/api/campaigns', { cookie: otherCookie })).status, 200);
  await page.click('#logout-everywhere');
  await page.waitForSelector('#login:not([hidden])');
  assert.match(await page.textContent('#notice'), /every session/);
  assert.equal((await api('/api/campaigns', { cookie: otherCookie })).status, 401);
  assert.equal(await pageFetchStatus('/api/campaigns'), 401);
  await screenshot('logged-out-everywhere');
});

step('the password, device id and session tokens never reach the bidder\'s log', async () => {
  const log = bidderLog();
  assert.ok(log.length > 0, 'the bidder logged its start');
  assert.ok(!log.includes(kPassword), 'password in the log');
  assert.ok(!log.includes(kDevice), 'device id in the log');
  assert.ok(tokens.length === 2, 'two session tokens seen');
  for (const token of tokens) assert.ok(!log.includes(token), 'a session token in the log');
});

step('the page raised no exception and the CSP refused nothing', async () => {
  assert.deepEqual(pageProblems, []);
});
