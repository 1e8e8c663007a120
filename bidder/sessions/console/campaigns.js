// The campaigns card: the list with its filters, pacing, bids and wins;
// pause, resume and archive; and the campaign form that creates and edits
// the stored campaigns (opened from the list, and saved back into it, so it
// lives here too).
import { ApiError } from './api.js';
import { loadHistory, openHistory } from './history.js';
import { loadCharts } from './telemetry.js';
import { $, api, dateTime, element, messageOf, showNotice, state } from './shared.js';

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

function timeOfDay(ms) {
  return new Date(ms).toLocaleTimeString('en-GB');
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

export async function loadCampaigns() {
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

export function closeEditor() {
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
