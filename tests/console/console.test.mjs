// The operator console in a real browser: Debian's Chromium, headless,
// driven by playwright-core, against the built rtb-bidder on 127.0.0.1.
//
// Starts the bidder on an embedded store in a temp dir (seeded profiles,
// telemetry every second, one operator whose hash rtb-passwd made), runs an
// 8 s rtb-load, wins two bids for a device of its own (win and billing
// notices), then in the browser: the console refuses data before login,
// shows the error of a wrong password, logs in, shows the campaigns and a
// campaign's charts with data points, a device's events, erases the device
// and follows the erasure's steps; lists the stored campaigns with their
// status, spend against budget, bids and wins, creates one through the form,
// shows an invalid edit's problems next to their fields (nothing stored), a
// stale edit's conflict and its reload, pauses and resumes it and lists
// those changes in its audit history, archives it (after a confirmation)
// and filters the list by state and advertiser; logs out (the API then answers 401, the old
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

// The text of each cell of a campaign's row, by column (data-col), the
// texts of its elements joined by spaces.
function rowCells(id) {
  return page.$$eval(`#campaigns-body tr[data-campaign-id="${id}"] td`, (cells) => Object.fromEntries(cells.map((c) => {
    const parts = [...c.children].map((e) => e.textContent.trim()).filter(Boolean);
    return [c.dataset.col, parts.length ? parts.join(' ') : c.textContent.trim()];
  })));
}

// A session of the test's own (the same operator) for API calls beside the
// page's: its cookie and CSRF token.
async function apiSession() {
  const login = await api('/api/login', { method: 'POST', body: { user: kUser, password: kPassword } });
  assert.equal(login.status, 200, login.text);
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const session = await api('/api/session', { cookie });
  assert.equal(session.status, 200, session.text);
  return { cookie, csrf: JSON.parse(session.text).csrf_token };
}

// The stored campaign as the API has it, through the page's session.
function storedCampaign(id) {
  return page.evaluate(async (c) => {
    const response = await fetch(`/api/campaigns/${encodeURIComponent(c)}`, { credentials: 'same-origin' });
    return { status: response.status, body: await response.json() };
  }, id);
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
  const row = await rowCells('northwind-travel-display');
  assert.match(row.budget, /\$250\.00/, 'daily budget');
  assert.match(row.state, /^(open|throttled|stopped|fail-safe)$/, 'pacing state');
  assert.match(row.throttle, /^\d+ %$/, 'throttle');
  // The won bids' spend reaches the pacing loop and the table.
  await eventually('northwind\'s spend today above zero', async () => {
    await page.click('#campaigns-refresh');
    await sleep(300);
    const spend = await page.textContent('#campaigns-body tr[data-campaign-id="northwind-travel-display"] td[data-col="spend"]');
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
  // The stream worker applies the load's notices as they come: its log is
  // never a minute behind.
  assert.equal(await page.$eval('#chart-beacon-lag', (f) => f.dataset.state), 'data', 'beacon log lag has points');
  const lag = await page.$$eval('#chart-beacon-lag svg circle.dot', (dots) => dots.map((d) => Number(d.dataset.v)));
  assert.ok(lag.length > 0 && lag.every((v) => v < 60), `seconds behind: ${lag}`);
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
  // The instance chooser lists this bidder (its series carry its instance
  // tag); one instance alone draws the same load.
  await eventually('the instance chooser lists the bidder', async () => {
    await page.click('#campaigns-refresh');
    await sleep(500);
    return (await page.$$eval('#charts-instance option', (os) => os.map((o) => o.value))).length >= 2;
  }, 30000, 1000);
  const instances = await page.$$eval('#charts-instance option', (os) => os.map((o) => o.value));
  assert.equal(instances[0], '', 'all instances first');
  assert.match(instances[1], /^[A-Za-z0-9.-]+_\d+$/, `instance ${instances[1]}`);
  const before = Number(await page.$eval('#charts', (c) => c.dataset.drawn));
  await page.selectOption('#charts-instance', instances[1]);
  await page.waitForFunction((n) => Number(document.getElementById('charts').dataset.drawn) > n, before);
  assert.equal(await page.$eval('#chart-bid-rate', (f) => f.dataset.state), 'data', 'one instance\'s bid rate');
  await page.selectOption('#charts-instance', '');
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

// The campaign the form creates (an id is never reused: one per run).
const kCreated = `console-created-${randomBytes(3).toString('hex')}`;

step('the list shows the seeded campaigns with their status, spend against budget, bids and wins', async () => {
  await page.click('#campaigns-refresh');
  const config = JSON.parse(readFileSync(path.join(work, 'bidder.json'), 'utf8'));
  for (const campaign of config.campaigns) {
    await page.waitForSelector(`#campaigns-body tr[data-campaign-id="${campaign.id}"][data-campaign-state="active"]`);
    const row = await rowCells(campaign.id);
    assert.match(row.status, /^active v1 · config-file$/, `${campaign.id} status`);
    assert.match(row.budget, /\d/, `${campaign.id} budget`);
    assert.match(row.spend, /\d/, `${campaign.id} spend`);
    assert.match(row.bids, /^\d+ \/ \d+$/, `${campaign.id} bids / wins`);
    const buttons = await page.$$eval(`#campaigns-body tr[data-campaign-id="${campaign.id}"] button`,
                                      (b) => b.map((x) => x.dataset.action));
    assert.deepEqual(buttons, ['charts', 'edit', 'pause', 'archive', 'history']);
  }
  // The load bid on northwind, and the test's won bids were billed.
  const northwind = await rowCells(kCampaign);
  const [bids, wins] = northwind.bids.split(' / ').map(Number);
  assert.ok(bids >= 10, `northwind bids ${bids}`);
  assert.ok(wins >= 1 && wins <= bids, `northwind wins ${wins}`);
  assert.match(northwind.spend, /[1-9]/);
  assert.match(northwind.budget, /\$250\.00/);
  await page.locator('#campaigns').scrollIntoViewIfNeeded();
  await screenshot('campaign-list');
});

step('a campaign created through the form is stored and listed', async () => {
  await page.click('#campaign-new');
  await page.waitForSelector('#campaign-editor:not([hidden])');
  assert.equal(await page.textContent('#campaign-save'), 'Create campaign');
  await page.fill('#campaign-id', kCreated);
  await page.fill('#campaign-advertiser', 'created.example');
  await page.fill('#campaign-budget', '40');
  await page.fill('#campaign-currency', 'USD');
  await page.fill('#campaign-max-bid', '1.5');
  await page.selectOption('#campaign-pacing', 'asap');
  await page.fill('#campaign-time-zone', 'Europe/Berlin');
  await page.fill('#campaign-frequency-cap', '5');
  // Without creatives: a problem of no field the form shows (neither an
  // input nor a key of the JSON), so at the top of the form; nothing stored.
  await page.fill('#campaign-other', '{}');
  await page.click('#campaign-save');
  await page.waitForSelector('#campaign-form-errors li');
  const top = await page.$$eval('#campaign-form-errors li', (items) => items.map((li) => li.textContent));
  assert.equal(top.length, 1, JSON.stringify(top));
  assert.match(top[0], /creatives: must list at least one creative$/);
  assert.equal(await page.textContent('#campaign-other-error'), '');
  assert.equal((await storedCampaign(kCreated)).status, 404, 'nothing stored');
  const config = JSON.parse(readFileSync(path.join(work, 'bidder.json'), 'utf8'));
  const model = config.campaigns.find((c) => c.id === kCampaign);
  const other = {
    iab_categories: model.iab_categories,
    creatives: model.creatives.map((c) => ({ ...c, id: `${kCreated}-${c.id}` })),
  };
  await page.fill('#campaign-other', JSON.stringify(other, null, 2));
  await screenshot('campaign-form-new');
  await page.click('#campaign-save');
  await page.waitForSelector('#campaign-editor', { state: 'hidden' });
  await page.waitForSelector(`#campaigns-body tr[data-campaign-id="${kCreated}"][data-campaign-state="active"]`);
  assert.match(await page.textContent('#notice'), new RegExp(`Created ${kCreated} \\(version 1\\)`));
  const row = await rowCells(kCreated);
  assert.match(row.status, new RegExp(`^active v1 · ${kUser}$`));
  assert.match(row.budget, /\$40\.00/);
  assert.match(row.pacing, /asap/);
  const stored = await storedCampaign(kCreated);
  assert.equal(stored.status, 200);
  assert.equal(stored.body.version, 1);
  assert.equal(stored.body.updated_by, kUser);
  assert.equal(stored.body.campaign.daily_budget_micros, 40000000);
  assert.equal(stored.body.campaign.max_bid_cpm, 1.5);
  assert.equal(stored.body.campaign.pacing_mode, 'asap');
  assert.equal(stored.body.campaign.time_zone, 'Europe/Berlin');
  assert.deepEqual(stored.body.campaign.advertiser_domains, ['created.example']);
  assert.equal(stored.body.campaign.creatives.length, model.creatives.length);
  await screenshot('campaign-created');
});

step('an invalid edit shows the error next to its field and stores nothing', async () => {
  await page.click(`#campaigns-body tr[data-campaign-id="${kCreated}"] button[data-action="edit"]`);
  await page.waitForSelector('#campaign-editor[data-mode="edit"]:not([hidden])');
  assert.equal(await page.inputValue('#campaign-budget'), '40');
  assert.equal(await page.$eval('#campaign-id', (i) => i.readOnly), true, 'the id cannot change');
  // A key the campaign object does not have: refused before the rules are
  // checked, shown next to the JSON it came from.
  const other = JSON.parse(await page.inputValue('#campaign-other'));
  other.no_such_field = 1;
  await page.fill('#campaign-other', JSON.stringify(other, null, 2));
  await page.click('#campaign-save');
  await page.waitForFunction(() => document.getElementById('campaign-other-error').textContent !== '');
  assert.match(await page.textContent('#campaign-other-error'), /no_such_field/);
  assert.equal(await page.getAttribute('#campaign-other', 'aria-invalid'), 'true');
  // Broken rules: every problem at once, each next to its field.
  delete other.no_such_field;
  other.creatives[0].landing_url = 'not a url';
  await page.fill('#campaign-other', JSON.stringify(other, null, 2));
  await page.fill('#campaign-budget', '-5');
  await page.click('#campaign-save');
  await page.waitForFunction(() => document.getElementById('campaign-daily_budget_micros-error').textContent !== '');
  const budgetError = await page.textContent('#campaign-daily_budget_micros-error');
  assert.match(budgetError, /must be > 0/);
  assert.equal(await page.getAttribute('#campaign-budget', 'aria-invalid'), 'true');
  assert.equal(await page.$eval('.field[data-field="daily_budget_micros"]', (f) => f.classList.contains('invalid')), true);
  const otherError = await page.textContent('#campaign-other-error');
  assert.match(otherError, /^creatives\[0\]\.landing_url: /, 'the creative\'s problem next to the JSON');
  assert.doesNotMatch(otherError, /no_such_field/, 'the earlier problem is cleared');
  assert.equal(await page.textContent('#campaign-id-error'), '', 'no error on a valid field');
  assert.equal(await page.textContent('#campaign-max_bid_cpm-error'), '');
  assert.deepEqual(await page.$$eval('#campaign-form-errors li', (items) => items.length), 0);
  assert.equal(await page.isVisible('#campaign-editor'), true, 'the form stays open');
  await screenshot('campaign-invalid-edit');
  const stored = await storedCampaign(kCreated);
  assert.equal(stored.body.version, 1, 'nothing stored');
  assert.equal(stored.body.campaign.daily_budget_micros, 40000000);
  // Fixed, for the next step's save.
  await page.fill('#campaign-budget', '45');
  other.creatives[0].landing_url = `https://www.${kCreated}.example/`;
  await page.fill('#campaign-other', JSON.stringify(other, null, 2));
});

step('a stale edit shows the conflict with the current version and reloads it', async () => {
  // Another operator session changes the campaign while the form is open.
  const other = await apiSession();
  tokens.push(other.cookie.slice(other.cookie.indexOf('=') + 1));
  const patched = await api(`/api/campaigns/${kCreated}?version=1`, {
    method: 'PATCH', cookie: other.cookie, csrf: other.csrf, body: { max_bid_cpm: 1.75 },
  });
  assert.equal(patched.status, 200, patched.text);
  await page.click('#campaign-save');
  await page.waitForSelector('#campaign-conflict:not([hidden])');
  assert.match(await page.textContent('#campaign-conflict-text'), /you edited version 1, the current version is 2/);
  assert.equal(await page.getAttribute('#campaign-conflict', 'data-current-version'), '2');
  await screenshot('campaign-conflict');
  assert.equal((await storedCampaign(kCreated)).body.campaign.max_bid_cpm, 1.75, 'the other edit is kept');
  await page.click('#campaign-reload');
  await page.waitForSelector('#campaign-editor[data-version="2"]');
  assert.equal(await page.isVisible('#campaign-conflict'), false);
  assert.equal(await page.inputValue('#campaign-max-bid'), '1.75');
  assert.equal(await page.inputValue('#campaign-budget'), '40');
  await page.fill('#campaign-budget', '45');
  await page.click('#campaign-save');
  await page.waitForSelector('#campaign-editor', { state: 'hidden' });
  const stored = await storedCampaign(kCreated);
  assert.equal(stored.body.version, 3);
  assert.equal(stored.body.campaign.daily_budget_micros, 45000000);
  assert.equal(stored.body.campaign.max_bid_cpm, 1.75);
  await page.waitForFunction((id) => /\$45\.00/.test(document.querySelector(
    `#campaigns-body tr[data-campaign-id="${id}"] td[data-col="budget"]`)?.textContent || ''), kCreated);
});

step('pause then resume: the list shows the state', async () => {
  const selector = `#campaigns-body tr[data-campaign-id="${kCreated}"]`;
  await page.click(`${selector} button[data-action="pause"]`);
  await page.waitForSelector(`${selector}[data-campaign-state="paused"]`);
  let row = await rowCells(kCreated);
  assert.match(row.status, /^paused v4/);
  assert.equal(row.state, 'stopped', 'a paused campaign does not bid');
  assert.equal(await page.$$eval(`${selector} button[data-action="resume"]`, (b) => b.length), 1);
  assert.equal(await page.$$eval(`${selector} button[data-action="pause"]`, (b) => b.length), 0);
  assert.equal((await storedCampaign(kCreated)).body.campaign_state, 'paused');
  await screenshot('campaign-paused');
  await page.click(`${selector} button[data-action="resume"]`);
  await page.waitForSelector(`${selector}[data-campaign-state="active"]`);
  row = await rowCells(kCreated);
  assert.match(row.status, /^active v5/);
  assert.equal((await storedCampaign(kCreated)).body.campaign_state, 'active');
});

step('the audit history lists those changes with the operator', async () => {
  await page.click(`#campaigns-body tr[data-campaign-id="${kCreated}"] button[data-action="history"]`);
  await page.waitForFunction((id) => {
    const card = document.getElementById('campaign-history');
    return !card.hidden && card.dataset.campaign === id && card.dataset.loaded;
  }, kCreated);
  const entries = await page.$$eval('#campaign-history-body tr', (rows) => rows.map((r) => ({
    action: r.dataset.action,
    operator: r.dataset.operator,
    version: r.dataset.version,
    cells: [...r.querySelectorAll('td')].map((c) => c.textContent.trim()),
    changes: Object.fromEntries([...r.querySelectorAll('li[data-field]')].map((li) => [li.dataset.field, li.textContent])),
  })));
  // The console's PUT and the other session's PATCH are both updates.
  assert.deepEqual(entries.map((e) => e.action), ['resume', 'pause', 'update', 'update', 'create']);
  assert.deepEqual(entries.map((e) => e.version), ['5', '4', '3', '2', '1']);
  for (const e of entries) {
    assert.equal(e.operator, kUser);
    assert.equal(e.cells[1], kUser);
    assert.match(e.cells[0], /\d{4}/, 'a time');
  }
  assert.equal(entries[0].changes.state, 'state: paused → active');
  assert.equal(entries[1].changes.state, 'state: active → paused');
  assert.equal(entries[2].changes.daily_budget_micros, 'daily_budget_micros: 40000000 → 45000000');
  assert.deepEqual(Object.keys(entries[2].changes), ['daily_budget_micros'], 'only the budget changed');
  assert.equal(entries[3].changes.max_bid_cpm, 'max_bid_cpm: 1.5 → 1.75');
  assert.match(entries[4].changes.daily_budget_micros, /40000000/);
  await page.locator('#campaign-history').scrollIntoViewIfNeeded();
  await screenshot('campaign-history');
});

step('the list filters by state and advertiser, and archiving asks first and is final', async () => {
  const selector = `#campaigns-body tr[data-campaign-id="${kCreated}"]`;
  const listed = () => page.$$eval('#campaigns-body tr[data-campaign-id]', (rows) => rows.map((r) => r.dataset.campaignId));
  // Declining the confirmation changes nothing.
  // (confirm() blocks the page until the dialog is answered, so the click
  // returns after the handler has run).
  page.once('dialog', (dialog) => dialog.dismiss());
  await page.click(`${selector} button[data-action="archive"]`);
  assert.equal((await storedCampaign(kCreated)).body.campaign_state, 'active');
  let question = '';
  page.once('dialog', (dialog) => {
    question = dialog.message();
    dialog.accept();
  });
  await page.click(`${selector} button[data-action="archive"]`);
  await page.waitForSelector(`${selector}[data-campaign-state="archived"]`);
  assert.match(question, new RegExp(`^Archive ${kCreated}\\?`));
  assert.deepEqual(await page.$$eval(`${selector} button`, (b) => b.map((x) => x.dataset.action)),
                   ['charts', 'history'], 'an archived campaign is neither edited nor resumed');
  assert.equal((await storedCampaign(kCreated)).body.campaign_state, 'archived');

  await page.selectOption('#campaigns-state-filter', 'archived');
  await page.waitForFunction((id) => {
    const rows = [...document.querySelectorAll('#campaigns-body tr[data-campaign-id]')];
    return rows.length === 1 && rows[0].dataset.campaignId === id;
  }, kCreated);
  await page.selectOption('#campaigns-state-filter', 'active');
  await page.waitForFunction((id) => {
    const rows = [...document.querySelectorAll('#campaigns-body tr[data-campaign-id]')];
    return rows.length > 0 && !rows.some((r) => r.dataset.campaignId === id);
  }, kCreated);
  await page.selectOption('#campaigns-state-filter', '');
  await page.fill('#campaigns-advertiser-filter', 'Created.Example');
  await page.dispatchEvent('#campaigns-advertiser-filter', 'change');
  await page.waitForFunction((id) => {
    const rows = [...document.querySelectorAll('#campaigns-body tr[data-campaign-id]')];
    return rows.length === 1 && rows[0].dataset.campaignId === id;
  }, kCreated);
  await page.fill('#campaigns-advertiser-filter', 'nobody.example');
  await page.dispatchEvent('#campaigns-advertiser-filter', 'change');
  await page.waitForSelector('#campaigns-body td:has-text("No campaign matches the filters.")');
  await page.fill('#campaigns-advertiser-filter', '');
  await page.dispatchEvent('#campaigns-advertiser-filter', 'change');
  await page.waitForFunction(() => document.querySelectorAll('#campaigns-body tr[data-campaign-id]').length > 1);
  assert.ok((await listed()).includes(kCampaign));
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
  assert.equal(await page.$$eval('#campaign-history-body tr', (r) => r.length), 0, 'no history left on the page');
  assert.equal(await page.isVisible('#campaign-history'), false);
  assert.equal(await page.isVisible('#campaign-editor'), false);
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
  assert.ok(tokens.length === 3, 'three session tokens seen');
  for (const token of tokens) assert.ok(!log.includes(token), 'a session token in the log');
});

step('the page raised no exception and the CSP refused nothing', async () => {
  assert.deepEqual(pageProblems, []);
});
