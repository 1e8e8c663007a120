// The history card: a campaign's audit entries (time, operator, change,
// version, the fields before and after), opened from the campaigns list.
import { ApiError } from './api.js';
import { $, api, dateTime, element, messageOf, state } from './shared.js';

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

export async function loadHistory() {
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

export function openHistory(id) {
  state.historyId = id;
  $('campaign-history-campaign').textContent = id;
  $('campaign-history').dataset.campaign = id;
  $('campaign-history-body').replaceChildren();
  $('campaign-history').hidden = false;
  loadHistory();
  $('campaign-history').scrollIntoView({ block: 'nearest' });
}

export function closeHistory() {
  state.historyId = '';
  state.historyGeneration++;
  $('campaign-history').hidden = true;
  $('campaign-history-body').replaceChildren();
  $('campaign-history-error').textContent = '';
  delete $('campaign-history').dataset.campaign;
}
$('campaign-history-close').addEventListener('click', closeHistory);
