// The operator console: login, campaigns with their pacing, per-campaign
// telemetry charts, a device's recent events, privacy erasure with its
// progress, logout. Everything comes from the session-checked /api routes;
// the session cookie is HttpOnly and the CSRF token lives only in memory.
// Device ids typed here go only into request paths, percent-encoded: they
// are never stored (no localStorage, no URL, no console output).
import { Api, ApiError } from './api.js';
import { counterRate, drawChart, drawChartError, pointsOf, ratio, scale } from './charts.js';

const $ = (id) => document.getElementById(id);

const kCampaignsRefreshMs = 10000;
const kChartsRefreshMs = 15000;
const kErasurePollMs = 3000;
const kErasureMaxPolls = 100;
// Chart range -> downsample step, so a range has at most ~180 points.
const kRanges = { '15m': '5s', '1h': '30s', '6h': '2m', '24h': '8m' };

const api = new Api(() => sessionEnded('Your session has ended. Log in again.'));
const state = {
  loggedIn: false,
  campaigns: [],
  selected: '',
  canErase: false,
  chartsGeneration: 0,
  campaignsTimer: 0,
  chartsTimer: 0,
  erasureTimer: 0,
};

// ---------------------------------------------------------------------------
// Formatting

// Amounts under one unit keep up to four decimals: a few impressions cost a
// fraction of a cent, and "$0.00" would hide them.
function money(micros, currency) {
  const units = micros / 1e6;
  const small = units !== 0 && Math.abs(units) < 1;
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: small ? 4 : 2 })
      .format(units);
  } catch {
    return `${units.toFixed(2)} ${currency}`;
  }
}

// A number for a chart: short, with a k/M suffix for large values; trailing
// zeros dropped (axis ticks are round numbers).
function compact(value, digits = 2) {
  if (value === 0) return '0';
  const abs = Math.abs(value);
  const trim = (text) => (text.includes('.') ? text.replace(/\.?0+$/, '') : text);
  if (abs >= 1e6) return `${trim((value / 1e6).toFixed(1))}M`;
  if (abs >= 1e4) return `${trim((value / 1e3).toFixed(1))}k`;
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return trim(value.toFixed(1));
  if (abs >= 0.01) return trim(value.toFixed(digits));
  return trim(value.toPrecision(2));
}

// An axis tick: as many decimals as the tick step has (0.25 -> 2).
function tick(value, step) {
  if (Math.abs(value) >= 1e4) return compact(value);
  const decimals = (String(Number(step.toPrecision(3))).split('.')[1] || '').length;
  return value.toFixed(Math.min(decimals, 6));
}

// A chart's value formatter: the number with its unit, the tick alone on
// the axis.
function withUnit(unit, digits) {
  return (v, { axis = false, step = 1 } = {}) => (axis ? tick(v, step) : `${compact(v, digits)} ${unit}`);
}

function dateTime(ms) {
  if (ms === null || ms === undefined) return '';
  return new Date(ms).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });
}

function timeOfDay(ms) {
  return new Date(ms).toLocaleTimeString('en-GB');
}

function element(tag, { className, text, dataset } = {}, children = []) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  if (dataset) Object.assign(e.dataset, dataset);
  for (const child of children) e.appendChild(child);
  return e;
}

function showNotice(text) {
  $('notice').textContent = text;
  $('notice').hidden = !text;
}

// The server's message as a sentence.
function messageOf(error) {
  const text = error.message || String(error);
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  if (error instanceof ApiError && error.status === 403) return `Not allowed: ${text}`;
  return sentence;
}

// The id as typed, trimmed; null (with the reason shown in `errorId`) when
// it cannot be a device id.
function deviceIdFrom(input, errorId) {
  const id = input.value.trim();
  if (id === '' || id === '.' || id === '..') {
    $(errorId).textContent = 'Enter a device id (an advertising id or a user id).';
    input.focus();
    return null;
  }
  return id;
}

// ---------------------------------------------------------------------------
// Session

function stopTimers() {
  clearInterval(state.campaignsTimer);
  clearInterval(state.chartsTimer);
  clearTimeout(state.erasureTimer);
  state.campaignsTimer = state.chartsTimer = state.erasureTimer = 0;
}

// Nothing fetched under a session stays on screen after it.
function clearData() {
  state.campaigns = [];
  state.chartsGeneration++;
  $('campaigns-body').replaceChildren();
  $('campaigns-as-of').textContent = '';
  for (const id of ['campaigns-error', 'events-error', 'erasure-error']) $(id).textContent = '';
  for (const figure of document.querySelectorAll('figure.chart')) {
    figure.querySelector('[data-role=body]').replaceChildren();
    figure.querySelector('[data-role=value]').textContent = '';
    delete figure.dataset.state;
    delete figure.dataset.points;
  }
  $('events-body').replaceChildren();
  $('events-table').hidden = true;
  $('events-summary').hidden = true;
  $('erasure-status').hidden = true;
  $('erasure-steps').replaceChildren();
  for (const id of ['events-device', 'erasure-device']) $(id).value = '';
  $('erasure-confirm').checked = false;
  for (const id of ['user', 'session-id', 'privileges', 'created', 'who']) $(id).textContent = '';
}

function show(loggedIn) {
  state.loggedIn = loggedIn;
  document.body.dataset.view = loggedIn ? 'console' : 'login';
  $('login').hidden = loggedIn;
  $('home').hidden = !loggedIn;
  $('topbar-session').hidden = !loggedIn;
}

function sessionEnded(notice) {
  api.csrfToken = '';
  stopTimers();
  clearData();
  show(false);
  showNotice(notice);
  $('login-user').focus();
}

async function loadSession() {
  let session;
  try {
    session = await api.session();
  } catch (e) {
    api.csrfToken = '';
    show(false);
    if (!(e instanceof ApiError && e.status === 401)) showNotice(`Cannot check the session: ${messageOf(e)}`);
    return;
  }
  api.csrfToken = session.csrf_token;
  $('who').textContent = session.user;
  $('user').textContent = session.user;
  $('session-id').textContent = session.session_id;
  $('privileges').textContent = (session.privileges || []).join(', ');
  $('created').textContent = dateTime(session.created_ms);
  state.canErase = (session.privileges || []).includes('erase');
  $('erasure-submit').disabled = !state.canErase;
  show(true);
  showNotice('');
  startConsole();
}

$('login').addEventListener('submit', async (event) => {
  event.preventDefault();
  const user = $('login-user').value.trim();
  const password = $('login-password').value;
  $('login-error').textContent = '';
  if (!user || !password) {
    $('login-error').textContent = 'Enter your user name and password.';
    return;
  }
  $('login-submit').disabled = true;
  try {
    await api.login(user, password);
    $('login-password').value = '';
    await loadSession();
  } catch (e) {
    $('login-password').value = '';
    if (e instanceof ApiError && e.status === 429) {
      const wait = e.retryAfterS ? ` Try again in ${e.retryAfterS} s.` : ' Try again later.';
      $('login-error').textContent = `Too many failed logins.${wait}`;
    } else {
      $('login-error').textContent = messageOf(e);
    }
    $('login-password').focus();
  } finally {
    $('login-submit').disabled = false;
  }
});

async function logout(everywhere) {
  try {
    await api.logout(everywhere);
    sessionEnded(everywhere ? 'Logged out of every session.' : 'Logged out.');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      sessionEnded('Logged out.');
    } else {
      showNotice(`Logout failed: ${messageOf(e)}`);
    }
  }
}
$('logout').addEventListener('click', () => logout(false));
$('logout-everywhere').addEventListener('click', () => logout(true));

function startConsole() {
  stopTimers();
  loadCampaigns();
  state.campaignsTimer = setInterval(loadCampaigns, kCampaignsRefreshMs);
  state.chartsTimer = setInterval(() => loadCharts(), kChartsRefreshMs);
}

// ---------------------------------------------------------------------------
// Campaigns

function campaignRow(c) {
  const row = element('tr', { dataset: { campaignId: c.id, state: c.state } });
  if (c.id === state.selected) row.classList.add('selected');

  const name = element('td', {}, [
    element('span', { className: 'campaign-id', text: c.id }),
    element('span', { className: 'muted small block', text: `${c.time_zone} · ${c.currency}` }),
  ]);
  const pacing = element('td', {}, [element('span', { className: 'tag', text: c.pacing_mode })]);
  const budget = element('td', { className: 'num', text: money(c.daily_budget_micros, c.currency) });
  const spend = element('td', { className: 'num', text: money(c.spend_today_micros, c.currency) });

  const used = c.daily_budget_micros > 0 ? Math.min(c.spend_today_micros / c.daily_budget_micros, 1) : 0;
  const fill = element('span', { className: 'bar-fill' });
  fill.style.width = `${(used * 100).toFixed(1)}%`;
  const bar = element('span', { className: 'bar' }, [fill]);
  bar.setAttribute('role', 'meter');
  bar.setAttribute('aria-valuemin', '0');
  bar.setAttribute('aria-valuemax', '100');
  bar.setAttribute('aria-valuenow', (used * 100).toFixed(1));
  bar.setAttribute('aria-label', `${c.id} budget used`);
  const usedCell = element('td', {}, [
    element('span', { className: 'bar-row' }, [bar, element('span', { className: 'small muted', text: `${(used * 100).toFixed(1)} %` })]),
  ]);

  const stateCell = element('td', {}, [
    element('span', { className: `badge state-${c.state}`, text: c.state }),
  ]);
  const throttle = element('td', { className: 'num', text: `${Math.round(c.throttle * 100)} %` });

  // Pricing as this bidder saw it: the goal's value of an impression and the
  // average first-price bid over it; the win rate and average clearing price
  // of first-price notices.
  const p = c.pricing || {};
  const priceCell = element('td', {}, [
    element('span', { className: 'tag', text: p.goal || 'cpm' }),
    element('span', {
      className: 'muted small block',
      text: `value ${money((p.value_cpm || 0) * 1e6, c.currency)} · ` +
        `shaded to ${Math.round((p.average_shading_factor ?? 1) * 100)} %`,
    }),
  ]);
  const winCell = element('td', { className: 'num' }, [
    element('span', { text: p.wins + p.price_losses > 0 ? `${(p.win_rate * 100).toFixed(1)} %` : '–' }),
    element('span', {
      className: 'muted small block',
      text: p.wins > 0 ? `clears ${money(p.average_clearing_cpm * 1e6, c.currency)}` : '',
    }),
  ]);

  const button = element('button', { className: 'ghost small', text: 'Charts', dataset: { action: 'charts' } });
  button.type = 'button';
  button.setAttribute('aria-pressed', c.id === state.selected ? 'true' : 'false');
  button.setAttribute('aria-label', `Charts of ${c.id}`);
  button.addEventListener('click', () => selectCampaign(c.id));
  const actions = element('td', { className: 'actions' }, [button]);

  for (const cell of [name, pacing, budget, spend, usedCell, stateCell, throttle, priceCell, winCell, actions]) row.appendChild(cell);
  return row;
}

function renderCampaigns() {
  const rows = state.campaigns.map(campaignRow);
  if (rows.length === 0) {
    const cell = element('td', { className: 'muted', text: 'No campaigns are configured.' });
    cell.colSpan = 10;
    rows.push(element('tr', {}, [cell]));
  }
  $('campaigns-body').replaceChildren(...rows);
}

async function loadCampaigns() {
  if (!state.loggedIn) return;
  try {
    const answer = await api.campaigns();
    state.campaigns = answer.campaigns || [];
    $('campaigns-as-of').textContent = `as of ${timeOfDay(answer.as_of_ms)}`;
    $('campaigns-error').textContent = '';
    const known = state.campaigns.some((c) => c.id === state.selected);
    if (!known) state.selected = state.campaigns.length ? state.campaigns[0].id : '';
    renderCampaigns();
    if (!known) loadCharts();
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return;
    $('campaigns-error').textContent = `Campaigns: ${messageOf(e)}`;
  }
}
$('campaigns-refresh').addEventListener('click', async () => {
  await loadCampaigns();
  loadCharts();
});

function selectCampaign(id) {
  state.selected = id;
  renderCampaigns();
  loadCharts();
  $('charts').scrollIntoView({ block: 'nearest' });
}

// ---------------------------------------------------------------------------
// Charts

// The dps of one series, [] when the metric has not been written yet.
async function series(metric, { tags = {}, aggregator = 'sum', downsample, start }) {
  try {
    const answer = await api.query({
      start,
      queries: [{ aggregator, metric, tags, downsample }],
    });
    return pointsOf(Array.isArray(answer) && answer.length ? answer[0].dps : {});
  } catch (e) {
    if (e instanceof ApiError && e.status === 400 && /no such metric/.test(e.message)) return [];
    throw e;
  }
}

async function loadCharts() {
  if (!state.loggedIn) return;
  const generation = ++state.chartsGeneration;
  const campaign = state.campaigns.find((c) => c.id === state.selected);
  $('charts-campaign').textContent = campaign ? campaign.id : '';
  $('charts').dataset.campaign = campaign ? campaign.id : '';
  const figures = ['chart-bid-rate', 'chart-win-rate', 'chart-spend', 'chart-latency'].map((id) => $(id));
  if (!campaign) {
    for (const f of figures) drawChart(f, [], { emptyText: 'Select a campaign' });
    return;
  }
  const range = $('charts-range').value;
  const step = kRanges[range] || '5s';
  const stepMs = Number.parseInt(step, 10) * (step.endsWith('m') ? 60000 : 1000);
  // Counters are cumulative: the largest sample of a step is its last one,
  // and rates come from the differences between steps.
  const counter = { tags: { campaign: campaign.id }, downsample: `${step}-max`, start: `${range}-ago` };
  const gapMs = stepMs * 3;
  const current = () => generation === state.chartsGeneration && state.loggedIn;

  const [bids, wins, spend, latency] = await Promise.allSettled([
    series('bidder_bids_total', counter),
    series('bidder_wins_total', counter),
    series('bidder_spend_micros_total', counter),
    series('bidder_bid_latency_seconds.p99', { aggregator: 'max', downsample: `${step}-max`, start: `${range}-ago` }),
  ]);
  if (!current()) return;

  const value = (result) => (result.status === 'fulfilled' ? result.value : []);
  const bidRate = counterRate(value(bids));
  const charts = [
    { figure: figures[0], result: bids, points: bidRate, format: withUnit('bids/s') },
    { figure: figures[1], result: wins, points: scale(ratio(counterRate(value(wins)), bidRate), 100),
      format: withUnit('%', 1), emptyText: 'No wins in this range' },
    { figure: figures[2], result: spend, points: scale(counterRate(value(spend)), 60 / 1e6),
      format: withUnit(`${campaign.currency}/min`) },
    { figure: figures[3], result: latency, points: scale(value(latency), 1000), format: withUnit('ms') },
  ];
  // One time axis for the four, so their points line up.
  const drawn = charts.filter((c) => c.points.length > 0);
  const domain = drawn.length === 0 ? undefined : [
    Math.min(...drawn.map((c) => c.points[0][0])),
    Math.max(...drawn.map((c) => c.points[c.points.length - 1][0])),
  ];
  for (const c of charts) {
    if (c.result.status === 'rejected') {
      const e = c.result.reason;
      if (!(e instanceof ApiError && e.status === 401)) drawChartError(c.figure, `Cannot load: ${messageOf(e)}`);
      continue;
    }
    drawChart(c.figure, c.points, { format: c.format, gapMs, domain, emptyText: c.emptyText });
  }
  $('charts').dataset.drawn = String(generation);
}
$('charts-range').addEventListener('change', () => loadCharts());

// ---------------------------------------------------------------------------
// A device's events

function eventRow(e) {
  const summary = element('td', {}, [element('span', { text: e.summary || '' })]);
  if (e.body !== undefined) {
    const details = element('details', {}, [
      element('summary', { text: 'details' }),
      element('pre', { text: typeof e.body === 'string' ? e.body : JSON.stringify(e.body, null, 2) }),
    ]);
    summary.appendChild(details);
  }
  return element('tr', { dataset: { eventType: e.type, eventId: e.event_id } }, [
    element('td', { className: 'nowrap', text: dateTime(e.event_time_ms) }),
    element('td', {}, [element('span', { className: `tag type-${e.type}`, text: e.type })]),
    summary,
  ]);
}

$('events-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('events-error').textContent = '';
  const id = deviceIdFrom($('events-device'), 'events-error');
  if (id === null) return;
  const limit = Math.min(Math.max(Number.parseInt($('events-limit').value, 10) || 20, 1), 1000);
  $('events-submit').disabled = true;
  try {
    const answer = await api.deviceEvents(id, limit);
    const events = answer.events || [];
    $('events-body').replaceChildren(...events.map(eventRow));
    $('events-table').hidden = events.length === 0;
    $('events-summary').hidden = false;
    $('events-summary').dataset.count = String(events.length);
    $('events-summary').textContent = events.length === 0
      ? 'No events for this device.'
      : `${events.length} event${events.length === 1 ? '' : 's'}, newest first.`;
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) $('events-error').textContent = messageOf(e);
  } finally {
    $('events-submit').disabled = false;
  }
});

// ---------------------------------------------------------------------------
// Privacy erasure

function erasureSteps(s) {
  const compaction = s.major_compacted_ms
    ? dateTime(s.major_compacted_ms)
    : s.periodic_compaction && s.major_compaction_due_ms
      ? `waiting for the store's periodic major compaction, due ${dateTime(s.major_compaction_due_ms)}`
      : 'pending';
  const snapshots = s.prior_snapshots_expired_ms
    ? dateTime(s.prior_snapshots_expired_ms)
    : s.prior_snapshots_expire_ms
      ? `older snapshots and backups expire ${dateTime(s.prior_snapshots_expire_ms)}`
      : 'pending';
  return [
    { step: 'requested', label: 'Erasure recorded; new events for the device are dropped',
      done: s.requested_ms !== null && s.requested_ms !== undefined, detail: dateTime(s.requested_ms) },
    { step: 'tombstoned', label: 'Every row of the device deleted',
      done: Boolean(s.tombstoned_ms), detail: s.tombstoned_ms ? dateTime(s.tombstoned_ms) : 'pending' },
    { step: 'major_compacted', label: 'Store files rewritten without the deleted cells',
      done: Boolean(s.major_compacted_ms), detail: compaction },
    { step: 'prior_snapshots_expired', label: 'Snapshots and backups that held them expired',
      done: Boolean(s.prior_snapshots_expired_ms), detail: snapshots },
  ];
}

function renderErasure(s) {
  const steps = erasureSteps(s);
  const firstPending = steps.findIndex((x) => !x.done);
  const items = steps.map((x, i) => {
    const li = element('li', {
      className: x.done ? 'done' : i === firstPending ? 'current' : 'pending',
      dataset: { step: x.step, done: String(x.done) },
    }, [
      element('span', { className: 'step-label', text: x.label }),
      element('span', { className: 'step-detail muted small', text: x.detail }),
    ]);
    if (x.done) li.setAttribute('aria-label', `${x.label}: done ${x.detail}`);
    return li;
  });
  $('erasure-steps').replaceChildren(...items);
  $('erasure-status').dataset.step = s.step;
  $('erasure-status').dataset.complete = String(Boolean(s.complete));
  $('erasure-key').textContent = `Device key ${String(s.device_key || '').slice(0, 12)}… · step ${s.step.replace(/_/g, ' ')}${s.complete ? ' · complete' : ''}`;
  const r = s.rows_deleted || {};
  const parts = Object.entries(r).map(([table, n]) => `${table.replace(/_/g, ' ')} ${n}`);
  $('erasure-rows').textContent = parts.length ? `Rows deleted: ${parts.join(', ')}` : '';
  $('erasure-status').hidden = false;
}

// Polls the erasure's status until it completes, the session ends, or
// kErasureMaxPolls have passed. The id stays in this closure only.
function pollErasure(id, remaining) {
  clearTimeout(state.erasureTimer);
  if (remaining <= 0 || !state.loggedIn) return;
  state.erasureTimer = setTimeout(async () => {
    try {
      const s = await api.erasureStatus(id);
      if (!state.loggedIn) return;
      renderErasure(s);
      if (!s.complete) pollErasure(id, remaining - 1);
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 401)) $('erasure-error').textContent = messageOf(e);
    }
  }, kErasurePollMs);
}

$('erasure-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('erasure-error').textContent = '';
  const id = deviceIdFrom($('erasure-device'), 'erasure-error');
  if (id === null) return;
  if (!$('erasure-confirm').checked) {
    $('erasure-error').textContent = 'Tick the box to confirm the erasure.';
    return;
  }
  $('erasure-submit').disabled = true;
  try {
    const s = await api.eraseDevice(id);
    $('erasure-device').value = '';
    $('erasure-confirm').checked = false;
    renderErasure(s);
    if (!s.complete) pollErasure(id, kErasureMaxPolls);
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) $('erasure-error').textContent = messageOf(e);
  } finally {
    $('erasure-submit').disabled = !state.canErase;
  }
});

$('erasure-check').addEventListener('click', async () => {
  $('erasure-error').textContent = '';
  const id = deviceIdFrom($('erasure-device'), 'erasure-error');
  if (id === null) return;
  try {
    const s = await api.erasureStatus(id);
    renderErasure(s);
    if (!s.complete) pollErasure(id, kErasureMaxPolls);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      $('erasure-status').hidden = true;
      $('erasure-error').textContent = 'This device was never erased.';
    } else if (!(e instanceof ApiError && e.status === 401)) {
      $('erasure-error').textContent = messageOf(e);
    }
  }
});

loadSession();
