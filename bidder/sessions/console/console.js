// The operator console: login, campaigns with their pacing, bids and wins,
// creating and editing the stored campaigns (each validation problem next to
// its field, a stale edit's conflict with the current version), pause and
// resume, a campaign's audit history, per-campaign telemetry charts, a device's recent events, privacy erasure with its
// progress, logout. Everything comes from the session-checked /api routes;
// the session cookie is HttpOnly and the CSRF token lives only in memory.
// Device ids typed here go only into request paths, percent-encoded: they
// are never stored (no localStorage, no URL, no console output).
//
// This file holds the start-up, login, logout and the session card, and
// switches between the login form and the console; each card of the console
// is a module of its own (campaigns.js, history.js, telemetry.js, events.js,
// erasure.js), sharing the API client and the state through shared.js.
import { ApiError } from './api.js';
import { closeEditor, loadCampaigns } from './campaigns.js';
import { closeHistory } from './history.js';
import { loadCharts } from './telemetry.js';
// These two wire up their own forms; nothing of theirs is called from here.
import './events.js';
import './erasure.js';
import { $, api, dateTime, messageOf, onUnauthorized, showNotice, state } from './shared.js';

const kCampaignsRefreshMs = 10000;
const kChartsRefreshMs = 15000;

// A request begun before a logout can come back 401 after it; the session
// has ended already then, and the logout's notice stays.
onUnauthorized(() => {
  if (state.loggedIn) sessionEnded('Your session has ended. Log in again.');
});

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

loadSession();
