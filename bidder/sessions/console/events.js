// The device events card: a device's recent events, newest first. The id
// goes only into the request path, percent-encoded.
import { ApiError } from './api.js';
import { $, api, dateTime, deviceIdFrom, element, messageOf } from './shared.js';

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
