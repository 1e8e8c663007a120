// The operator console: login, campaigns with their pacing, bids and wins,
// creating and editing the stored campaigns (each validation problem next to
// its field, a stale edit's conflict with the current version), pause and
// resume, a campaign's audit history, per-campaign telemetry charts, a device's recent events, privacy erasure with its
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

// A request begun before a logout can come back 401 after it; the session
// has ended already then, and the logout's notice stays.
const api = new Api(() => {
  if (state.loggedIn) sessionEnded('Your session has ended. Log in again.');
});
const state = {
  loggedIn: false,
  campaigns: [],
  selected: '',
  // The campaign form: null when closed; { id: null } for a new campaign,
  // else the id and the version it was read at.
  editing: null,
  // The campaign whose history is shown, '' for none.
  historyId: '',
  historyGeneration: 0,
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
  $('campaigns-state-filter').value = '';
  $('campaigns-advertiser-filter').value = '';
  state.chartsGeneration++;
  closeEditor();
  closeHistory();
  $('campaign-new').hidden = true;
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
  const stored = typeof c.campaign_state === 'string';
  const row = element('tr', { dataset: { campaignId: c.id, state: c.state, campaignState: stored ? c.campaign_state : 'config' } });
  if (c.id === state.selected) row.classList.add('selected');
  const cell = (col, options = {}, children = []) => {
    const td = element('td', options, children);
    td.dataset.col = col;
    return td;
  };

  const name = cell('campaign', {}, [
    element('span', { className: 'campaign-id', text: c.id }),
    element('span', { className: 'muted small block', text: `${c.time_zone} · ${c.currency}` }),
  ]);
  const status = cell('status', {}, [
    element('span', { className: `badge status-${stored ? c.campaign_state : 'active'}`, text: stored ? c.campaign_state : 'config' }),
  ]);
  if (stored && c.version !== undefined) {
    status.appendChild(element('span', { className: 'muted small block', text: `v${c.version} · ${c.updated_by || ''}` }));
  }
  const pacing = cell('pacing', {}, [element('span', { className: 'tag', text: c.pacing_mode })]);
  const budget = cell('budget', { className: 'num', text: money(c.daily_budget_micros, c.currency) });
  const spend = cell('spend', { className: 'num', text: money(c.spend_today_micros, c.currency) });

  const used = c.daily_budget_micros > 0 ? Math.min(c.spend_today_micros / c.daily_budget_micros, 1) : 0;
  const fill = element('span', { className: 'bar-fill' });
  fill.style.width = `${(used * 100).toFixed(1)}%`;
  const bar = element('span', { className: 'bar' }, [fill]);
  bar.setAttribute('role', 'meter');
  bar.setAttribute('aria-valuemin', '0');
  bar.setAttribute('aria-valuemax', '100');
  bar.setAttribute('aria-valuenow', (used * 100).toFixed(1));
  bar.setAttribute('aria-label', `${c.id} budget used`);
  const usedCell = cell('used', {}, [
    element('span', { className: 'bar-row' }, [bar, element('span', { className: 'small muted', text: `${(used * 100).toFixed(1)} %` })]),
  ]);

  const stateCell = cell('state', {}, [
    element('span', { className: `badge state-${c.state}`, text: c.state }),
  ]);
  const throttle = cell('throttle', { className: 'num', text: `${Math.round(c.throttle * 100)} %` });
  // Since this bidder started: bids made, impressions won and claimed.
  const counts = cell('bids', { className: 'num', text: c.bids === undefined ? '–' : `${c.bids} / ${c.wins}` });

  // Pricing as this bidder saw it: the goal's value of an impression and the
  // average first-price bid over it; the win rate and average clearing price
  // of first-price notices.
  const p = c.pricing || {};
  const priceCell = cell('price', {}, [
    element('span', { className: 'tag', text: p.goal || 'cpm' }),
    element('span', {
      className: 'muted small block',
      text: `value ${money((p.value_cpm || 0) * 1e6, c.currency)} · ` +
        `shaded to ${Math.round((p.average_shading_factor ?? 1) * 100)} %`,
    }),
  ]);
  const winCell = cell('win-rate', { className: 'num' }, [
    element('span', { text: p.wins + p.price_losses > 0 ? `${(p.win_rate * 100).toFixed(1)} %` : '–' }),
    element('span', {
      className: 'muted small block',
      text: p.wins > 0 ? `clears ${money(p.average_clearing_cpm * 1e6, c.currency)}` : '',
    }),
  ]);

  const actionButton = (action, text, label, onClick) => {
    const b = element('button', { className: 'ghost small', text, dataset: { action } });
    b.type = 'button';
    b.setAttribute('aria-label', label);
    b.addEventListener('click', onClick);
    return b;
  };
  const chartsButton = actionButton('charts', 'Charts', `Charts of ${c.id}`, () => selectCampaign(c.id));
  chartsButton.setAttribute('aria-pressed', c.id === state.selected ? 'true' : 'false');
  const buttons = [chartsButton];
  if (stored) {
    if (c.campaign_state !== 'archived') {
      buttons.push(actionButton('edit', 'Edit', `Edit ${c.id}`, () => editCampaign(c.id)));
    }
    if (c.campaign_state === 'active') {
      buttons.push(actionButton('pause', 'Pause', `Pause ${c.id}`, () => changeCampaignState(c, 'pause')));
    } else if (c.campaign_state === 'paused') {
      buttons.push(actionButton('resume', 'Resume', `Resume ${c.id}`, () => changeCampaignState(c, 'resume')));
    }
    if (c.campaign_state !== 'archived') {
      buttons.push(actionButton('archive', 'Archive', `Archive ${c.id}`, () => archiveCampaign(c)));
    }
    buttons.push(actionButton('history', 'History', `History of ${c.id}`, () => openHistory(c.id)));
  }
  const actions = cell('actions', { className: 'actions' }, [element('div', { className: 'buttons' }, buttons)]);

  for (const td of [name, status, pacing, budget, spend, usedCell, stateCell, throttle, counts, priceCell, winCell, actions]) row.appendChild(td);
  return row;
}

function renderCampaigns() {
  const rows = state.campaigns.map(campaignRow);
  if (rows.length === 0) {
    const filtered = $('campaigns-state-filter').value || $('campaigns-advertiser-filter').value.trim();
    const cell = element('td', { className: 'muted', text: filtered ? 'No campaign matches the filters.' : 'No campaigns yet.' });
    cell.colSpan = 12;
    rows.push(element('tr', {}, [cell]));
  }
  $('campaigns-body').replaceChildren(...rows);
}

async function loadCampaigns() {
  if (!state.loggedIn) return;
  try {
    const answer = await api.campaigns({
      state: $('campaigns-state-filter').value,
      advertiser: $('campaigns-advertiser-filter').value.trim().toLowerCase(),
    });
    state.campaigns = answer.campaigns || [];
    // Campaigns can be created when the campaigns table is served (its
    // campaigns carry a stored state).
    $('campaign-new').hidden = !(state.campaigns.length === 0 ||
                                 state.campaigns.some((c) => typeof c.campaign_state === 'string'));
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
$('campaigns-state-filter').addEventListener('change', loadCampaigns);
$('campaigns-advertiser-filter').addEventListener('change', loadCampaigns);

function selectCampaign(id) {
  state.selected = id;
  renderCampaigns();
  loadCharts();
  $('charts').scrollIntoView({ block: 'nearest' });
}

// ---------------------------------------------------------------------------
// Pause, resume and archive

// Names the version the list was read at: when someone changed the campaign
// since, the 409 says so and the list is reloaded.
async function changeCampaignState(c, action) {
  $('campaigns-error').textContent = '';
  try {
    await api.changeCampaignState(c.id, action, c.version);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return;
    if (e instanceof ApiError && e.status === 409 && e.body && e.body.current_version !== undefined) {
      $('campaigns-error').textContent =
        `${c.id} was changed meanwhile (now version ${e.body.current_version}); the list is reloaded, try again.`;
    } else {
      const verb = action.charAt(0).toUpperCase() + action.slice(1);
      $('campaigns-error').textContent = `${verb} ${c.id}: ${messageOf(e)}`;
    }
  }
  await loadCampaigns();
  if (state.historyId === c.id) loadHistory();
}

// Archiving is final (the id is never used again), so it asks first.
function archiveCampaign(c) {
  if (!window.confirm(`Archive ${c.id}? It stops bidding for good and cannot be resumed or edited.`)) return;
  changeCampaignState(c, 'archive');
}

// ---------------------------------------------------------------------------
// The campaign form

// The campaign object's fields the form has an input for; the rest of the
// object is edited as JSON in the "other" textarea.
const kFormFields = {
  id: 'campaign-id',
  advertiser_domains: 'campaign-advertiser',
  daily_budget_micros: 'campaign-budget',
  currency: 'campaign-currency',
  max_bid_cpm: 'campaign-max-bid',
  pacing_mode: 'campaign-pacing',
  time_zone: 'campaign-time-zone',
  frequency_cap_per_day: 'campaign-frequency-cap',
};
// What a new campaign's JSON starts from: one banner creative to fill in.
const kNewCampaignOther = {
  iab_categories: [],
  creatives: [{ id: '', format: 'banner', w: 300, h: 250, adm: '', landing_url: '' }],
};

function fieldError(key) { return $(`campaign-${key}-error`); }

function clearFormErrors() {
  $('campaign-form-errors').replaceChildren();
  for (const field of document.querySelectorAll('#campaign-form .field')) {
    field.classList.remove('invalid');
    const error = fieldError(field.dataset.field);
    if (error) error.replaceChildren();
    const input = field.querySelector('input, select, textarea');
    if (input) input.removeAttribute('aria-invalid');
  }
  $('campaign-conflict').hidden = true;
}

function addFieldError(key, text) {
  const field = document.querySelector(`#campaign-form .field[data-field="${key}"]`);
  if (!field) {
    $('campaign-form-errors').appendChild(element('li', { text }));
    return;
  }
  field.classList.add('invalid');
  field.querySelector('input, select, textarea').setAttribute('aria-invalid', 'true');
  fieldError(key).appendChild(element('span', { className: 'block', text }));
}

// Each "<path>: <what is wrong>" next to its field: the path without its
// campaigns[N]. prefix names the field by its first part; a field of the
// JSON textarea goes there; anything else to the top of the form.
function showProblems(problems, otherKeys) {
  for (const problem of problems) {
    const colon = problem.indexOf(': ');
    const fullPath = colon < 0 ? '' : problem.slice(0, colon);
    const what = colon < 0 ? problem : problem.slice(colon + 2);
    const path = fullPath.replace(/^campaigns\[\d+\]\.?/, '');
    const key = path.split(/[.[]/)[0];
    if (key in kFormFields) {
      addFieldError(key, path === key ? what : `${path}: ${what}`);
    } else if (key && otherKeys.includes(key)) {
      addFieldError('other', `${path}: ${what}`);
    } else {
      addFieldError('', problem);
    }
  }
  const first = document.querySelector('#campaign-form .field.invalid input, #campaign-form .field.invalid select, #campaign-form .field.invalid textarea');
  if (first) first.focus();
}

function fillForm(campaign) {
  const c = campaign || {};
  $('campaign-id').value = c.id || '';
  $('campaign-advertiser').value = (c.advertiser_domains || []).join(', ');
  $('campaign-budget').value = typeof c.daily_budget_micros === 'number' ? String(c.daily_budget_micros / 1e6) : '';
  $('campaign-currency').value = c.currency || '';
  $('campaign-max-bid').value = c.max_bid_cpm === undefined ? '' : String(c.max_bid_cpm);
  $('campaign-pacing').value = c.pacing_mode === 'asap' ? 'asap' : 'even';
  $('campaign-time-zone').value = c.time_zone || '';
  $('campaign-frequency-cap').value = c.frequency_cap_per_day === undefined ? '' : String(c.frequency_cap_per_day);
  const other = {};
  for (const [key, value] of Object.entries(c)) {
    if (!(key in kFormFields)) other[key] = value;
  }
  $('campaign-other').value = JSON.stringify(other, null, 2);
}

// A number as typed; text that is not one goes to the server as it is, so
// its validation names the field.
function numberOrText(text) {
  const n = Number(text);
  return text !== '' && Number.isFinite(n) ? n : text;
}

// The campaign object the form describes; null (with the problem shown)
// when the JSON textarea does not hold an object.
function campaignFromForm() {
  let other;
  try {
    other = JSON.parse($('campaign-other').value.trim() || '{}');
  } catch (e) {
    addFieldError('other', `Not valid JSON: ${e.message}`);
    $('campaign-other').focus();
    return null;
  }
  if (other === null || typeof other !== 'object' || Array.isArray(other)) {
    addFieldError('other', 'Must be a JSON object ({ ... }).');
    $('campaign-other').focus();
    return null;
  }
  const campaign = { ...other };
  for (const key of Object.keys(kFormFields)) delete campaign[key];
  const text = (id) => $(id).value.trim();
  campaign.id = text('campaign-id');
  const domains = text('campaign-advertiser').split(/[\s,]+/).filter(Boolean);
  if (domains.length) campaign.advertiser_domains = domains;
  const budget = text('campaign-budget');
  if (budget !== '') {
    const units = Number(budget);
    campaign.daily_budget_micros = Number.isFinite(units) ? Math.round(units * 1e6) : budget;
  }
  if (text('campaign-currency')) campaign.currency = text('campaign-currency').toUpperCase();
  if (text('campaign-max-bid') !== '') campaign.max_bid_cpm = numberOrText(text('campaign-max-bid'));
  campaign.pacing_mode = $('campaign-pacing').value;
  if (text('campaign-time-zone')) campaign.time_zone = text('campaign-time-zone');
  if (text('campaign-frequency-cap') !== '') campaign.frequency_cap_per_day = numberOrText(text('campaign-frequency-cap'));
  return { campaign, otherKeys: Object.keys(other) };
}

function showEditor(editing, title) {
  state.editing = editing;
  showNotice('');
  clearFormErrors();
  $('campaign-editor-title').textContent = title;
  const isNew = editing.id === null;
  $('campaign-id').readOnly = !isNew;
  document.querySelector('#campaign-form .field[data-field="state"]').hidden = !isNew;
  $('campaign-save').textContent = isNew ? 'Create campaign' : 'Save changes';
  $('campaign-editor-version').textContent = isNew ? '' : `version ${editing.version}`;
  $('campaign-editor').dataset.mode = isNew ? 'create' : 'edit';
  $('campaign-editor').dataset.version = isNew ? '' : String(editing.version);
  $('campaign-editor').hidden = false;
  $('campaign-editor').scrollIntoView({ block: 'nearest' });
}

function closeEditor() {
  state.editing = null;
  $('campaign-editor').hidden = true;
  $('campaign-form').reset();
  clearFormErrors();
  $('campaign-other').value = '';
}

function newCampaign() {
  fillForm({ currency: 'USD', pacing_mode: 'even', time_zone: 'UTC', ...kNewCampaignOther });
  $('campaign-state').value = 'active';
  showEditor({ id: null }, 'New campaign');
  $('campaign-id').focus();
}
$('campaign-new').addEventListener('click', newCampaign);

// Opens the form on the stored campaign as it is now.
async function editCampaign(id) {
  $('campaigns-error').textContent = '';
  try {
    const record = await api.campaign(id);
    fillForm(record.campaign);
    showEditor({ id: record.id, version: record.version }, `Edit ${record.id}`);
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) $('campaigns-error').textContent = `Edit ${id}: ${messageOf(e)}`;
  }
}

// A stale edit: someone saved a newer version since the form was opened.
function showConflict(mine, body) {
  const current = body.current || {};
  const who = current.updated_by ? ` by ${current.updated_by}` : '';
  const when = current.updated_ms ? ` at ${dateTime(current.updated_ms)}` : '';
  $('campaign-conflict-text').textContent =
    `This campaign was changed since you opened it: you edited version ${mine}, ` +
    `the current version is ${body.current_version}${who}${when}. Nothing was saved. ` +
    'Reload the current version and make your change again.';
  $('campaign-conflict').dataset.currentVersion = String(body.current_version);
  $('campaign-conflict').hidden = false;
  $('campaign-reload').focus();
}

$('campaign-reload').addEventListener('click', () => {
  if (state.editing && state.editing.id !== null) editCampaign(state.editing.id);
});
$('campaign-cancel').addEventListener('click', closeEditor);

$('campaign-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!state.editing) return;
  clearFormErrors();
  const built = campaignFromForm();
  if (built === null) return;
  const editing = state.editing;
  const isNew = editing.id === null;
  $('campaign-save').disabled = true;
  try {
    let record;
    let pauseProblem = '';
    if (isNew) {
      record = await api.createCampaign(built.campaign);
      if ($('campaign-state').value === 'paused') {
        // Created either way: a failed pause is reported, not retried as a
        // create (the id is taken now).
        try {
          record = await api.changeCampaignState(record.id, 'pause', record.version);
        } catch (e) {
          pauseProblem = ` Pausing it failed: ${messageOf(e)}`;
        }
      }
    } else {
      record = await api.replaceCampaign(editing.id, editing.version, built.campaign);
    }
    closeEditor();
    showNotice(`${isNew ? 'Created' : 'Saved'} ${record.id} (version ${record.version}).${pauseProblem}`);
    await loadCampaigns();
    if (state.historyId === record.id) loadHistory();
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return;
    const body = (e instanceof ApiError && e.body) || {};
    if (e.status === 422 && Array.isArray(body.problems)) {
      showProblems(body.problems, built.otherKeys);
    } else if (e.status === 409 && body.current_version !== undefined) {
      showConflict(editing.version, body);
    } else if (e.status === 409 && isNew) {
      addFieldError('id', messageOf(e));
    } else {
      addFieldError('', messageOf(e));
    }
  } finally {
    $('campaign-save').disabled = false;
  }
});

// ---------------------------------------------------------------------------
// A campaign's history

const kStateChanges = { pause: ['active', 'paused'], resume: ['paused', 'active'], archive: ['', 'archived'] };

function shortJson(value) {
  const text = value === undefined ? '(none)' : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

function parsedObject(value) {
  return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

// The fields an audit entry changed, before and after.
function changeItems(entry) {
  const item = (field, before, after) => element('li', { dataset: { field } }, [
    element('span', { className: 'field-name', text: `${field}: ` }),
    ...(before === null ? [] : [element('span', { className: 'before', text: before }), element('span', { text: ' → ' })]),
    element('span', { className: 'after', text: after }),
  ]);
  const states = kStateChanges[entry.action];
  if (states) return [item('state', states[0] || null, states[1])];
  const before = parsedObject(entry.before);
  const after = parsedObject(entry.after);
  if (entry.before === null || entry.before === undefined || entry.before === '') {
    return Object.keys(after).map((key) => item(key, null, shortJson(after[key])));
  }
  const items = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) {
      items.push(item(key, shortJson(before[key]), shortJson(after[key])));
    }
  }
  if (items.length === 0) items.push(element('li', { className: 'muted', text: 'no field changed' }));
  return items;
}

function historyRow(entry) {
  return element('tr', { dataset: { action: entry.action, operator: entry.operator, version: String(entry.version) } }, [
    element('td', { className: 'nowrap', text: dateTime(entry.at_ms) }),
    element('td', { className: 'nowrap', text: entry.operator }),
    element('td', {}, [element('span', { className: 'tag', text: entry.action })]),
    element('td', { className: 'num', text: String(entry.version) }),
    element('td', {}, [element('ul', { className: 'changes' }, changeItems(entry))]),
  ]);
}

async function loadHistory() {
  const id = state.historyId;
  if (!id || !state.loggedIn) return;
  const generation = ++state.historyGeneration;
  try {
    const answer = await api.campaignAudit(id);
    if (generation !== state.historyGeneration) return;
    const entries = answer.audit || [];
    const rows = entries.map(historyRow);
    if (rows.length === 0) {
      const cell = element('td', { className: 'muted', text: 'No changes recorded.' });
      cell.colSpan = 5;
      rows.push(element('tr', {}, [cell]));
    }
    $('campaign-history-body').replaceChildren(...rows);
    $('campaign-history-error').textContent = '';
    $('campaign-history').dataset.loaded = String(generation);
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) $('campaign-history-error').textContent = messageOf(e);
  }
}

function openHistory(id) {
  state.historyId = id;
  $('campaign-history-campaign').textContent = id;
  $('campaign-history').dataset.campaign = id;
  $('campaign-history-body').replaceChildren();
  $('campaign-history').hidden = false;
  loadHistory();
  $('campaign-history').scrollIntoView({ block: 'nearest' });
}

function closeHistory() {
  state.historyId = '';
  state.historyGeneration++;
  $('campaign-history').hidden = true;
  $('campaign-history-body').replaceChildren();
  $('campaign-history-error').textContent = '';
  delete $('campaign-history').dataset.campaign;
}
$('campaign-history-close').addEventListener('click', closeHistory);

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
