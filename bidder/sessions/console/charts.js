// Line charts drawn as inline SVG, and the series arithmetic they need
// (rates from cumulative counters, ratios of two series). Presentation
// attributes and classes only: the page's CSP allows no inline styles.

const SVG_NS = 'http://www.w3.org/2000/svg';
const kWidth = 520;
const kHeight = 200;
const kMargin = { top: 12, right: 14, bottom: 26, left: 56 };
// Points drawn as dots up to this many; beyond, only the line.
const kMaxDots = 60;

function svg(name, attributes = {}, parent = null) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (parent) parent.appendChild(element);
  return element;
}

// OpenTSDB "dps" ({"<unix s>": value}) as [[ms, value], ...] in time order.
export function pointsOf(dps) {
  return Object.entries(dps || {})
    .map(([t, v]) => [Number(t) * 1000, Number(v)])
    .filter(([t, v]) => Number.isFinite(t) && Number.isFinite(v))
    .sort((a, b) => a[0] - b[0]);
}

// numerator / denominator at the timestamps both have; none where the
// denominator is 0.
export function ratio(numerator, denominator) {
  const byTime = new Map(denominator.map(([t, v]) => [t, v]));
  const out = [];
  for (const [t, v] of numerator) {
    const d = byTime.get(t);
    if (d !== undefined && d > 0) out.push([t, v / d]);
  }
  return out;
}

export function scale(points, factor) {
  return points.map(([t, v]) => [t, v * factor]);
}

// A round tick step giving at most kMaxTicks steps from 0 to `value`.
const kMaxTicks = 5;
function niceStep(value) {
  if (!(value > 0)) return 1;
  const base = 10 ** Math.floor(Math.log10(value / kMaxTicks));
  for (const m of [1, 2, 2.5, 5, 10]) {
    if (value / (m * base) <= kMaxTicks) return m * base;
  }
  return 10 * base;
}

// Round instants between t0 and t1 (ms), at most five.
const kTimeStepsS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200];
function timeTicks(t0, t1) {
  const span = t1 - t0;
  const stepS = kTimeStepsS.find((s) => span / (s * 1000) <= 4) || kTimeStepsS[kTimeStepsS.length - 1];
  const step = stepS * 1000;
  const ticks = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1 && ticks.length < 6; t += step) ticks.push(t);
  return ticks.length ? ticks : [t0];
}

function timeLabel(ms, spanMs) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, '0');
  const hm = `${two(d.getHours())}:${two(d.getMinutes())}`;
  return spanMs < 10 * 60 * 1000 ? `${hm}:${two(d.getSeconds())}` : hm;
}

// Draws `points` ([[ms, value], ...]) into `figure` (a <figure> with
// [data-role=body] and [data-role=value]), or says there is no data.
// `format` turns a value into text with its unit (with `axis`: the number
// alone, as precise as the tick `step`);
// `gapMs` is the spacing beyond which two points are not joined (the bidder
// was not writing); `domain` ([from ms, to ms]) is the time axis, shared by
// the charts drawn together (default: the points' own span).
export function drawChart(figure, points, { format, gapMs, emptyText, domain }) {
  const body = figure.querySelector('[data-role=body]');
  const valueLabel = figure.querySelector('[data-role=value]');
  const name = figure.querySelector('.chart-title')?.firstChild?.textContent?.trim() || 'chart';
  body.replaceChildren();
  figure.dataset.points = String(points.length);
  if (points.length === 0) {
    valueLabel.textContent = '';
    figure.dataset.state = 'empty';
    const empty = document.createElement('p');
    empty.className = 'chart-empty';
    empty.dataset.role = 'empty';
    empty.textContent = emptyText || 'No data in this range';
    body.appendChild(empty);
    return;
  }
  figure.dataset.state = 'data';
  const last = points[points.length - 1][1];
  valueLabel.textContent = format(last);

  const [t0, t1] = domain || [points[0][0], points[points.length - 1][0]];
  const span = t1 - t0;
  const single = span <= 0;
  const step = niceStep(Math.max(...points.map(([, v]) => v)));
  const yTicks = Math.max(1, Math.ceil(Math.max(...points.map(([, v]) => v)) / step - 1e-9));
  const maxValue = step * yTicks;
  const plotW = kWidth - kMargin.left - kMargin.right;
  const plotH = kHeight - kMargin.top - kMargin.bottom;
  const x = (t) => kMargin.left + (single ? plotW / 2 : ((t - t0) / span) * plotW);
  const y = (v) => kMargin.top + plotH - (v / maxValue) * plotH;

  const root = svg('svg', {
    viewBox: `0 0 ${kWidth} ${kHeight}`,
    role: 'img',
    'aria-label': `${name}: ${points.length} points, latest ${format(last)}`,
    'data-series-points': points.length,
    class: 'chart-svg',
  }, body);

  const grid = svg('g', { class: 'grid' }, root);
  for (let i = 0; i <= yTicks; i++) {
    const v = step * i;
    const yy = y(v);
    svg('line', { x1: kMargin.left, x2: kWidth - kMargin.right, y1: yy, y2: yy,
                  class: i === 0 ? 'axis' : 'gridline' }, grid);
    const label = svg('text', { x: kMargin.left - 6, y: yy + 4, 'text-anchor': 'end',
                                class: 'tick' }, grid);
    label.textContent = format(v, { axis: true, step });
  }
  const plotRight = kWidth - kMargin.right;
  for (const t of single ? [t0] : timeTicks(t0, t1)) {
    const xx = x(t);
    const anchor = xx < kMargin.left + 24 ? 'start' : xx > plotRight - 24 ? 'end' : 'middle';
    const label = svg('text', { x: xx, y: kHeight - 8, 'text-anchor': anchor, class: 'tick' }, grid);
    label.textContent = timeLabel(t, span);
  }

  // The line, broken where the samples are further apart than gapMs.
  const runs = [];
  let run = [];
  for (let i = 0; i < points.length; i++) {
    if (i > 0 && points[i][0] - points[i - 1][0] > gapMs) {
      runs.push(run);
      run = [];
    }
    run.push(points[i]);
  }
  runs.push(run);
  const baseline = y(0);
  for (const r of runs) {
    const line = r.map(([t, v], i) => `${i === 0 ? 'M' : 'L'}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join('');
    if (r.length > 1) {
      svg('path', { d: `${line}L${x(r[r.length - 1][0]).toFixed(1)},${baseline}L${x(r[0][0]).toFixed(1)},${baseline}Z`,
                    class: 'area' }, root);
    }
    svg('path', { d: line, class: 'line', 'data-role': 'line' }, root);
  }

  const dots = svg('g', { class: points.length > kMaxDots ? 'dots dense' : 'dots' }, root);
  for (const [t, v] of points) {
    const dot = svg('circle', { cx: x(t).toFixed(1), cy: y(v).toFixed(1), r: 2.6, class: 'dot',
                                'data-t': t, 'data-v': v }, dots);
    const title = svg('title', {}, dot);
    title.textContent = `${timeLabel(t, 0)}  ${format(v)}`;
  }
}

// Marks a chart as failed, with the reason.
export function drawChartError(figure, message) {
  const body = figure.querySelector('[data-role=body]');
  figure.querySelector('[data-role=value]').textContent = '';
  figure.dataset.state = 'error';
  figure.dataset.points = '0';
  const p = document.createElement('p');
  p.className = 'chart-empty error';
  p.dataset.role = 'error';
  p.textContent = message;
  body.replaceChildren(p);
}
