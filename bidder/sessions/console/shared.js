// What every page of the console shares: the API client, the page's state,
// and the helpers more than one page uses (elements, dates, messages, the
// device id field). It imports no page, so every page can import it.
import { Api, ApiError } from './api.js';

export const $ = (id) => document.getElementById(id);

// What a 401 does to the session is console.js's (it owns the login), so it
// hands this module its handler rather than this module importing it.
let unauthorized = () => {};
export function onUnauthorized(handler) { unauthorized = handler; }
export const api = new Api((error) => unauthorized(error));

export const state = {
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

export function dateTime(ms) {
  if (ms === null || ms === undefined) return '';
  return new Date(ms).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });
}

export function element(tag, { className, text, dataset } = {}, children = []) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  if (dataset) Object.assign(e.dataset, dataset);
  for (const child of children) e.appendChild(child);
  return e;
}

export function showNotice(text) {
  $('notice').textContent = text;
  $('notice').hidden = !text;
}

// The server's message as a sentence.
export function messageOf(error) {
  const text = error.message || String(error);
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  if (error instanceof ApiError && error.status === 403) return `Not allowed: ${text}`;
  return sentence;
}

// The id as typed, trimmed; null (with the reason shown in `errorId`) when
// it cannot be a device id.
export function deviceIdFrom(input, errorId) {
  const id = input.value.trim();
  if (id === '' || id === '.' || id === '..') {
    $(errorId).textContent = 'Enter a device id (an advertising id or a user id).';
    input.focus();
    return null;
  }
  return id;
}
