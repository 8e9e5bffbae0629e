// SVG charts drawn from numbers: a line chart over ordered periods (with levels drawn as steps), a
// grouped bar chart and a proportion bar.
// Elements are made with createElementNS and every label is a text node; colours come from the
// style sheet's `series-N` classes (the Content-Security-Policy allows no inline style).

import { h, table } from './render.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 640;
const HEIGHT = 280;
const MARGIN = { top: 16, right: 16, bottom: 44, left: 64 };
/** Room between the axis and a line chart's first and last point, for their labels. */
const INSET = 28;
/** Up to this many points a line chart marks each one (with its value on hover). */
const MARKED_POINTS = 60;

function s(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** Five round tick values covering [min, max]. */
function ticks(min, max) {
  if (min === max) {
    const pad = Math.abs(min) > 0 ? Math.abs(min) * 0.1 : 1;
    return ticks(min - pad, max + pad);
  }
  const raw = (max - min) / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= raw) ?? raw;
  const values = [];
  // From the tick at or below the minimum to the first at or above the maximum.
  for (let value = Math.floor(min / step) * step; ; value += step) {
    values.push(Number(value.toPrecision(12)));
    if (value >= max - step * 1e-9) return values;
  }
}

function frame(title, description) {
  return s(
    'svg',
    { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': title, class: 'chart', focusable: 'false' },
    s('title', {}, title),
    s('desc', {}, description),
  );
}

function yAxis(svg, values, scale, format) {
  const axis = s('g', { class: 'axis' });
  for (const value of values) {
    const y = scale(value);
    axis.append(s('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y, y2: y, class: value === 0 ? 'zero' : 'grid' }));
    axis.append(s('text', { x: MARGIN.left - 8, y: y + 4, 'text-anchor': 'end' }, format(value)));
  }
  svg.append(axis);
}

function xLabels(svg, labels, position) {
  const axis = s('g', { class: 'axis' });
  // As many labels as fit side by side (about 7 px a character at the axis's size, at most eight),
  // evenly spread; the last is added when it is at least half a step from the one before it.
  const widest = Math.max(...labels.map((label) => String(label).length));
  const fit = Math.max(2, Math.min(8, Math.floor((WIDTH - MARGIN.left - MARGIN.right) / (widest * 7 + 16))));
  const every = Math.max(1, Math.ceil(labels.length / fit));
  const last = labels.length - 1;
  labels.forEach((label, index) => {
    const shown = index % every === 0 || (index === last && last % every >= every / 2);
    if (!shown) return;
    axis.append(s('text', { x: position(index), y: HEIGHT - MARGIN.bottom + 18, 'text-anchor': 'middle' }, label));
  });
  svg.append(axis);
}

function legend(series) {
  return h(
    'ul',
    { class: 'legend' },
    series.map((item, index) => h('li', {}, h('span', { class: `swatch series-${index % 6}`, 'aria-hidden': 'true' }), item.name)),
  );
}

/** The numbers behind a chart, on demand. */
function dataTable(title, labels, series, format) {
  return h(
    'details',
    { class: 'chart-data' },
    h('summary', {}, 'Show the numbers'),
    table(
      title,
      ['Period', ...series.map((item) => item.name)],
      labels.map((label, index) => [label, ...series.map((item) => format(item.values[index]))]),
    ),
  );
}

/**
 * A level that holds until the next label, drawn as steps: each value runs flat to the next
 * label and then jumps. A label without a value ends a run; every run is one polyline's points.
 * A level open at the start (or end) runs from the plot's left edge (or to its right edge).
 */
function staircases(item, x, y) {
  const { values } = item;
  const [left, right] = [MARGIN.left, WIDTH - MARGIN.right];
  const point = (px, value) => `${px.toFixed(1)},${y(value).toFixed(1)}`;
  const runs = [];
  let run = [];
  values.forEach((value, i) => {
    if (!Number.isFinite(value)) {
      if (run.length > 0) runs.push(run);
      run = [];
      return;
    }
    if (run.length > 0) run.push(point(x(i), values[i - 1]));
    else if (i === 0 && item.openStart) run.push(point(left, value));
    run.push(point(x(i), value));
    if (i === values.length - 1 && item.openEnd) run.push(point(right, value));
  });
  if (run.length > 0) runs.push(run);
  return runs.filter((points) => points.length > 1).map((points) => points.join(' '));
}

/**
 * A line chart: `labels` are the x positions in order (periods, dates), each series has one value
 * per label (null where it has none); a series with `step: true` is a level that holds until the
 * next label (a schedule), drawn as steps, from the left edge with `openStart` and to the right
 * edge with `openEnd` (a level with no first or last date).
 */
export function lineChart({ title, description, labels, series, format = String }) {
  const values = series.flatMap((item) => item.values).filter((v) => Number.isFinite(v));
  const figure = h('figure', { class: 'chart-figure' }, h('figcaption', {}, title));
  if (values.length === 0) {
    figure.append(h('p', { class: 'muted' }, 'No figures to draw.'));
    return figure;
  }
  const yTicks = ticks(Math.min(...values), Math.max(...values));
  const [low, high] = [Math.min(...yTicks), Math.max(...yTicks)];
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const y = (value) => MARGIN.top + plotHeight - ((value - low) / (high - low || 1)) * plotHeight;
  const x = (index) =>
    MARGIN.left + INSET + (labels.length === 1 ? (plotWidth - 2 * INSET) / 2 : (index / (labels.length - 1)) * (plotWidth - 2 * INSET));
  const svg = frame(title, description ?? title);
  yAxis(svg, yTicks, y, format);
  xLabels(svg, labels, x);
  series.forEach((item, index) => {
    const points = item.values.map((value, i) => (Number.isFinite(value) ? [x(i), y(value), value, i] : null)).filter(Boolean);
    const group = s('g', { class: `series series-${index % 6}${item.step ? ' step' : ''}`, 'data-series': item.name });
    if (item.step) {
      for (const run of staircases(item, x, y)) group.append(s('polyline', { points: run, fill: 'none' }));
    } else if (points.length > 1) {
      group.append(s('polyline', { points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' '), fill: 'none' }));
    }
    // A dense series (daily closes) is a line; its points are in the table below the chart.
    if (labels.length > MARKED_POINTS) {
      svg.append(group);
      return;
    }
    for (const [px, py, value, i] of points) {
      group.append(s('circle', { cx: px.toFixed(1), cy: py.toFixed(1), r: 3.5 }, s('title', {}, `${item.name}, ${labels[i]}: ${format(value)}`)));
    }
    svg.append(group);
  });
  figure.append(svg, legend(series), dataTable(title, labels, series, format));
  return figure;
}

/** Grouped bars: one group per label, one bar per series. Negative values hang below zero. */
export function barChart({ title, description, labels, series, format = String }) {
  const values = series.flatMap((item) => item.values).filter((v) => Number.isFinite(v));
  const figure = h('figure', { class: 'chart-figure' }, h('figcaption', {}, title));
  if (values.length === 0) {
    figure.append(h('p', { class: 'muted' }, 'No figures to draw.'));
    return figure;
  }
  const yTicks = ticks(Math.min(0, ...values), Math.max(0, ...values));
  const [low, high] = [Math.min(...yTicks), Math.max(...yTicks)];
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const y = (value) => MARGIN.top + plotHeight - ((value - low) / (high - low || 1)) * plotHeight;
  const groupWidth = plotWidth / labels.length;
  const barWidth = Math.min(40, (groupWidth * 0.8) / series.length);
  const center = (index) => MARGIN.left + groupWidth * (index + 0.5);
  const svg = frame(title, description ?? title);
  yAxis(svg, yTicks, y, format);
  xLabels(svg, labels, center);
  series.forEach((item, seriesIndex) => {
    const group = s('g', { class: `series series-${seriesIndex % 6}`, 'data-series': item.name });
    item.values.forEach((value, index) => {
      if (!Number.isFinite(value)) return;
      const left = center(index) - (barWidth * series.length) / 2 + seriesIndex * barWidth;
      const top = Math.min(y(value), y(0));
      const height = Math.max(1, Math.abs(y(value) - y(0)));
      group.append(
        s('rect', { x: left.toFixed(1), y: top.toFixed(1), width: (barWidth - 2).toFixed(1), height: height.toFixed(1) },
          s('title', {}, `${item.name}, ${labels[index]}: ${format(value)}`)),
      );
    });
    svg.append(group);
  });
  figure.append(svg, legend(series), dataTable(title, labels, series, format));
  return figure;
}

/**
 * A horizontal bar filled to `fraction` of its length (clamped to 0–1), for a share such as a
 * covenant's headroom; `className` colours the fill. Its label is its text alternative.
 */
export function proportionBar(fraction, label, className = '') {
  const width = 120;
  const filled = Number.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) * width : 0;
  return s(
    'svg',
    { viewBox: `0 0 ${width} 10`, width, height: 10, role: 'img', 'aria-label': label, class: `proportion ${className}`.trim(), focusable: 'false' },
    s('title', {}, label),
    s('rect', { class: 'track', x: 0, y: 0, width, height: 10, rx: 2 }),
    s('rect', { class: 'fill', x: 0, y: 0, width: filled.toFixed(1), height: 10, rx: 2 }),
  );
}
