// The admin API as the console calls it: same origin, the session cookie
// (HttpOnly, so this code never sees it) and, on calls that change state,
// the CSRF token from /api/session in X-CSRF-Token.

// body: the parsed error answer (a 422's "problems", a 409's "current").
export class ApiError extends Error {
  constructor(status, message, retryAfterS, body = null) {
    super(message);
    this.status = status;
    this.retryAfterS = retryAfterS;
    this.body = body;
  }
}

const kTimeoutMs = 15000;

export class Api {
  // onUnauthorized runs when a call that needed a session got 401.
  constructor(onUnauthorized) {
    this.csrfToken = '';
    this.onUnauthorized = onUnauthorized;
  }

  // The parsed JSON answer (null for 204); throws ApiError otherwise.
  async call(method, path, { json, changesState = false, quiet401 = false } = {}) {
    const headers = {};
    if (json !== undefined) headers['Content-Type'] = 'application/json';
    if (changesState) headers['X-CSRF-Token'] = this.csrfToken;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), kTimeoutMs);
    let response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: json === undefined ? undefined : JSON.stringify(json),
        credentials: 'same-origin',
        cache: 'no-store',
        signal: controller.signal,
      });
    } catch (e) {
      throw new ApiError(0, e.name === 'AbortError' ? 'the bidder did not answer in time'
                                                      : 'the bidder cannot be reached');
    } finally {
      clearTimeout(timer);
    }
    if (response.status === 204) return null;
    const text = await response.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (response.ok) return body;
    const message = (body && typeof body.error === 'string') ? body.error
                                                             : `${response.status} ${response.statusText}`;
    const retry = Number.parseInt(response.headers.get('Retry-After') || '', 10);
    const error = new ApiError(response.status, message, Number.isFinite(retry) ? retry : undefined, body);
    if (response.status === 401 && !quiet401) this.onUnauthorized(error);
    throw error;
  }

  session() { return this.call('GET', '/api/session', { quiet401: true }); }
  login(user, password) {
    return this.call('POST', '/api/login', { json: { user, password }, quiet401: true });
  }
  logout(everywhere) {
    return this.call('POST', everywhere ? '/api/logout-everywhere' : '/api/logout',
                     { changesState: true, quiet401: true });
  }
  // filter: { state, advertiser }, each left out when empty.
  campaigns(filter = {}) {
    const query = new URLSearchParams();
    if (filter.state) query.set('state', filter.state);
    if (filter.advertiser) query.set('advertiser', filter.advertiser);
    const text = query.toString();
    return this.call('GET', text ? `/api/campaigns?${text}` : '/api/campaigns');
  }
  // The stored campaigns (campaigns table): every change names the version
  // it was read at (?version=N), so a stale edit is a 409, never lost.
  campaign(id) { return this.call('GET', `/api/campaigns/${encodeURIComponent(id)}`); }
  campaignAudit(id, limit = 50) {
    return this.call('GET', `/api/campaigns/${encodeURIComponent(id)}/audit?limit=${limit}`);
  }
  createCampaign(campaign) {
    return this.call('POST', '/api/campaigns', { json: campaign, changesState: true });
  }
  replaceCampaign(id, version, campaign) {
    return this.call('PUT', `/api/campaigns/${encodeURIComponent(id)}?version=${version}`,
                     { json: campaign, changesState: true });
  }
  // action: pause, resume or archive.
  changeCampaignState(id, action, version) {
    return this.call('POST', `/api/campaigns/${encodeURIComponent(id)}/${action}?version=${version}`,
                     { changesState: true });
  }
  query(body) { return this.call('POST', '/api/query', { json: body }); }

  // The raw device id goes only into the path, percent-encoded.
  deviceEvents(deviceId, limit) {
    return this.call('GET', `/api/devices/${encodeURIComponent(deviceId)}/events?limit=${limit}`);
  }
  eraseDevice(deviceId) {
    return this.call('DELETE', `/api/devices/${encodeURIComponent(deviceId)}`, { changesState: true });
  }
  erasureStatus(deviceId) {
    return this.call('GET', `/api/devices/${encodeURIComponent(deviceId)}/erasure`);
  }
}
