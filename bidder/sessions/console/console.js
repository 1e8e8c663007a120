// The operator console: login, the current session, logout. The session
// cookie is HttpOnly; the CSRF token comes from /api/session and goes back
// in X-CSRF-Token on every state-changing call.
(function () {
  'use strict';
  let csrfToken = '';
  const $ = (id) => document.getElementById(id);

  function show(loggedIn) {
    $('login').hidden = loggedIn;
    $('home').hidden = !loggedIn;
    $('who').hidden = !loggedIn;
    $('logout').hidden = !loggedIn;
    $('logout-everywhere').hidden = !loggedIn;
  }

  async function loadSession() {
    const response = await fetch('/api/session', { credentials: 'same-origin' });
    if (response.status !== 200) {
      csrfToken = '';
      show(false);
      return;
    }
    const session = await response.json();
    csrfToken = session.csrf_token;
    $('who').textContent = session.user;
    $('user').textContent = session.user;
    $('session-id').textContent = session.session_id;
    $('privileges').textContent = session.privileges.join(', ');
    $('created').textContent = new Date(session.created_ms).toISOString();
    show(true);
  }

  $('login').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.target;
    $('login-error').textContent = '';
    const response = await fetch('/api/login', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user: form.user.value, password: form.password.value }),
    });
    form.password.value = '';
    if (response.status !== 200) {
      const body = await response.json().catch(() => ({}));
      $('login-error').textContent = body.error || ('login failed (' + response.status + ')');
      return;
    }
    await loadSession();
  });

  async function logout(path) {
    await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'X-CSRF-Token': csrfToken },
    });
    await loadSession();
  }
  $('logout').addEventListener('click', () => logout('/api/logout'));
  $('logout-everywhere').addEventListener('click', () => logout('/api/logout-everywhere'));

  loadSession();
})();
