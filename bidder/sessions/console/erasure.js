// The privacy erasure card: erasing a device, then following its steps
// (recorded, tombstoned, compacted, prior snapshots expired).
import { ApiError } from './api.js';
import { $, api, dateTime, deviceIdFrom, element, messageOf, state } from './shared.js';

const kErasurePollMs = 3000;
const kErasureMaxPolls = 100;

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
