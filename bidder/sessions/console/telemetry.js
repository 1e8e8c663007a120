// The telemetry card: the selected campaign's charts (bid rate, win rate,
// spend, p99 bid latency) from /api/query, drawn by charts.js, for the
// whole fleet (every bidder's series: counters' rates taken per instance by
// the server, then summed) or for one instance.
import { ApiError } from './api.js';
import { drawChart, drawChartError, pointsOf, ratio, scale } from './charts.js';
import { $, api, messageOf, state } from './shared.js';

// Chart range -> downsample step, so a range has at most ~180 points.
const kRanges = { '15m': '5s', '1h': '30s', '6h': '2m', '24h': '8m' };

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

// The instance chosen (the `instance` tag), or {} for the whole fleet.
function instanceTags() {
  const instance = $('charts-instance').value;
  return instance ? { instance } : {};
}

// The dps of one series, [] when the metric has not been written yet. A
// counter's are its per-second rate: each instance's (a restart's drop left
// out), then summed, so instances that restart or sample at other moments
// never show as a jump.
async function series(metric, { tags = {}, aggregator = 'sum', downsample, start, counter = false }) {
  const query = { aggregator, metric, tags: { ...tags, ...instanceTags() }, downsample };
  if (counter) Object.assign(query, { rate: true, rateOptions: { counter: true, dropResets: true } });
  try {
    const answer = await api.query({ start, queries: [query] });
    return pointsOf(Array.isArray(answer) && answer.length ? answer[0].dps : {});
  } catch (e) {
    if (e instanceof ApiError && e.status === 400 && /no such metric/.test(e.message)) return [];
    throw e;
  }
}

// [ms, caught-up time in s] -> [ms, seconds behind at that sample], never
// below zero (the sample and the gauge come from one clock, a sample apart).
function behind(points) {
  return points.map(([t, caughtUp]) => [t, Math.max(0, t / 1000 - caughtUp)]);
}

export async function loadCharts() {
  if (!state.loggedIn) return;
  const generation = ++state.chartsGeneration;
  // Instances come and go with the fleet; a failed list keeps the old one.
  await loadInstances().catch(() => {});
  const campaign = state.campaigns.find((c) => c.id === state.selected);
  $('charts-campaign').textContent = campaign ? campaign.id : '';
  $('charts').dataset.campaign = campaign ? campaign.id : '';
  const figures = ['chart-bid-rate', 'chart-win-rate', 'chart-spend', 'chart-latency', 'chart-beacon-lag'].map((id) => $(id));
  if (!campaign) {
    for (const f of figures) drawChart(f, [], { emptyText: 'Select a campaign' });
    return;
  }
  const range = $('charts-range').value;
  const step = kRanges[range] || '5s';
  const stepMs = Number.parseInt(step, 10) * (step.endsWith('m') ? 60000 : 1000);
  // Counters are cumulative: the largest sample of a step is its last one,
  // and the rates come from the differences between steps.
  const counter = { tags: { campaign: campaign.id }, downsample: `${step}-max`, start: `${range}-ago`, counter: true };
  const gapMs = stepMs * 3;
  const current = () => generation === state.chartsGeneration && state.loggedIn;

  const [bids, wins, spend, latency, caughtUp] = await Promise.allSettled([
    series('bidder_bids_total', counter),
    series('bidder_wins_total', counter),
    series('bidder_spend_micros_total', counter),
    series('bidder_bid_latency_seconds.p99', { aggregator: 'max', downsample: `${step}-max`, start: `${range}-ago` }),
    // When the stream worker last found the beacon log applied: the
    // earliest of the workers is the furthest behind.
    series('bidder_beacon_stream_caught_up_timestamp_seconds', { aggregator: 'min', downsample: `${step}-min`, start: `${range}-ago` }),
  ]);
  if (!current()) return;

  const value = (result) => (result.status === 'fulfilled' ? result.value : []);
  const bidRate = value(bids);
  const charts = [
    { figure: figures[0], result: bids, points: bidRate, format: withUnit('bids/s') },
    { figure: figures[1], result: wins, points: scale(ratio(value(wins), bidRate), 100),
      format: withUnit('%', 1), emptyText: 'No wins in this range' },
    { figure: figures[2], result: spend, points: scale(value(spend), 60 / 1e6),
      format: withUnit(`${campaign.currency}/min`) },
    { figure: figures[3], result: latency, points: scale(value(latency), 1000), format: withUnit('ms') },
    { figure: figures[4], result: caughtUp, points: behind(value(caughtUp)), format: withUnit('s', 1) },
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
$('charts-instance').addEventListener('change', () => loadCharts());

// The instances that wrote bid counts in the last day, for the chooser; the
// choice is kept while it is still among them.
async function loadInstances() {
  if (!state.loggedIn) return;
  let names = [];
  try {
    const answer = await api.query({
      start: '24h-ago',
      queries: [{ aggregator: 'sum', metric: 'bidder_bid_requests_total', tags: { instance: '*' }, downsample: '1h-max' }],
    });
    names = (Array.isArray(answer) ? answer : []).map((g) => g.tags && g.tags.instance).filter(Boolean).sort();
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 400)) throw e;
  }
  const select = $('charts-instance');
  const chosen = select.value;
  select.replaceChildren(new Option('all instances', ''), ...names.map((n) => new Option(n, n)));
  select.value = names.includes(chosen) ? chosen : '';
}
