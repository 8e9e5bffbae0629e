// Numbers, dates and field names as an analyst reads them. Pure functions of their input.

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const precise = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });

// Figures are written as the service writes them in its summaries (domain/quant/display.rs):
// amounts with their currency and, from a million up, a scale with one decimal chosen after
// rounding ("USD 383.3 bn", "USD 750,000", "USD -1.2 bn"); multiples and percentages with three
// significant figures ("0.88×", "29.8%", "1.25%"); scores with two decimals; a value that would
// round to zero with two significant digits, or below 0.000001 as a bound ("< 0.000001%").

/** Amounts from a million up are written at the largest of these scales they reach. */
const SCALES = [[1e12, 'tn'], [1e9, 'bn'], [1e6, 'm']];
/** The smallest magnitude written with its digits. */
const SMALLEST = 1e-6;

/**
 * A number in the unit the API names: `fraction` (0.05 is 5%), `ratio` (a multiple), `currency`
 * (an amount, in `currency` when it is known), `count`, `score`, or a currency code (`USD`).
 */
export function number(value, unit = '', currency = null) {
  if (value === null || value === undefined || value === '') return '—';
  const n = Number(value);
  if (!Number.isFinite(n)) return '—';
  const u = String(unit ?? '');
  if (u === 'fraction') return percent(n);
  if (u === 'ratio') return multiple(n);
  if (u === 'currency') return amount(n, currency);
  if (u === 'count' || u === 'score') return score(n);
  if (/^[A-Z]{3}$/.test(u)) return amount(n, u);
  return plain(n);
}

function plain(n) {
  return Math.abs(n) >= 1000 ? integer.format(n) : Math.abs(n) >= 1 ? decimal.format(n) : precise.format(n);
}

function roundTo(magnitude, decimals) {
  const factor = 10 ** decimals;
  return Math.round(magnitude * factor) / factor;
}

function grouped(magnitude, decimals) {
  return new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(magnitude);
}

/** The written magnitude with a minus when the value is negative and the text is not zero. */
function signed(value, text) {
  return value < 0 && /[1-9]/.test(text) ? `-${text}` : text;
}

/** A nonzero value that rounds to zero: two significant digits, or the bound it is within. */
function small(value) {
  const magnitude = Math.abs(value);
  if (magnitude >= SMALLEST) return signed(value, String(Number(magnitude.toPrecision(2))));
  return value > 0 ? `< ${SMALLEST.toFixed(6)}` : `> -${SMALLEST.toFixed(6)}`;
}

/** 383 285 000 000 in USD → "USD 383.3 bn"; without a currency, "383.3 bn". */
export function amount(value, currency = null) {
  const n = Number(value);
  if (!Number.isFinite(n)) return '—';
  const prefix = currency ? `${currency} ` : '';
  const magnitude = Math.abs(n);
  const reached = SCALES.findIndex(([size]) => magnitude >= size);
  if (reached >= 0) {
    let [size, name] = SCALES[reached];
    // 999.95 m rounds to 1,000.0 m: that is the next scale's 1.0.
    if (roundTo(magnitude / size, 1) >= 1000 && reached > 0) [size, name] = SCALES[reached - 1];
    return prefix + signed(n, `${grouped(roundTo(magnitude / size, 1), 1)} ${name}`);
  }
  if (Math.round(magnitude) >= 1e6) return prefix + signed(n, '1.0 m');
  if (magnitude >= 1000 || Number.isInteger(magnitude) || roundTo(magnitude, 2) >= 1000) return prefix + signed(n, grouped(Math.round(magnitude), 0));
  if (roundTo(magnitude, 2) === 0) return prefix + small(n);
  return prefix + signed(n, grouped(roundTo(magnitude, 2), 2));
}

/**
 * An amount to the unit, as a calculation schedule shows it: 3 500 000 in USD → "USD 3,500,000";
 * cents only when it has them ("USD 1,234.56").
 */
export function exactAmount(value, currency = null) {
  const n = Number(value);
  if (value === null || value === undefined || value === '' || !Number.isFinite(n)) return '—';
  const prefix = currency ? `${currency} ` : '';
  const cents = Math.round(Math.abs(n) * 100) % 100 !== 0;
  return prefix + signed(n, grouped(roundTo(Math.abs(n), cents ? 2 : 0), cents ? 2 : 0));
}

/** Three significant figures, at most two decimals: 0.88, 29.8, 1,235. */
function threeFigures(value) {
  const magnitude = Math.abs(value);
  const decimals = roundTo(magnitude, 1) >= 100 ? 0 : roundTo(magnitude, 2) >= 10 ? 1 : 2;
  const rounded = roundTo(magnitude, decimals);
  if (rounded === 0 && magnitude > 0) return small(value);
  return signed(value, grouped(rounded, decimals));
}

/** A multiple: 0.8812 → "0.88×". */
export function multiple(value) {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return '—';
  return `${threeFigures(Number(value))}×`;
}

/** A fraction as a percentage: 0.2984 → "29.8%", 0.0125 → "1.25%". */
export function percent(fraction) {
  if (fraction === null || fraction === undefined || !Number.isFinite(Number(fraction))) return '—';
  return `${threeFigures(Number(fraction) * 100)}%`;
}

/** A score: two decimals, a whole one as an integer. */
export function score(value) {
  const n = Number(value);
  if (value === null || value === undefined || !Number.isFinite(n)) return '—';
  if (Number.isInteger(n)) return signed(n, grouped(Math.abs(n), 0));
  const rounded = roundTo(Math.abs(n), 2);
  if (rounded === 0) return small(n);
  return signed(n, grouped(rounded, 2));
}

/** An RFC 3339 time in the analyst's locale; the raw text when it does not parse. */
export function dateTime(raw) {
  if (!raw) return '—';
  const date = new Date(raw);
  if (Number.isNaN(date.getTime())) return String(raw);
  return date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** `snake_case` or `camelCase` → "Snake case". */
export function words(name) {
  const spaced = String(name ?? '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replaceAll('_', ' ')
    .trim()
    .toLowerCase();
  return spaced ? spaced[0].toUpperCase() + spaced.slice(1) : '';
}

/** A JSON pointer into an agreement (`/facilities/0/terminationDate`) as a label. */
export function pointerLabel(pointer) {
  return String(pointer)
    .split('/')
    .filter((part) => part !== '')
    .map((part) => (/^\d+$/.test(part) ? `#${Number(part) + 1}` : words(decodePointer(part))))
    .join(' › ');
}

function decodePointer(part) {
  return part.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** The value at a JSON pointer, or undefined. */
export function atPointer(root, pointer) {
  let node = root;
  for (const part of String(pointer).split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = node[decodePointer(part)];
  }
  return node;
}

/** A value of an extracted agreement in words: amounts with their currency, lists joined. */
export function agreementValue(value) {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.map(agreementValue).join(', ');
  if (typeof value === 'object') {
    if ('amount' in value && 'currency' in value) return `${integer.format(Number(value.amount))} ${value.currency}`;
    if ('value' in value && 'currency' in value) return `${integer.format(Number(value.value))} ${value.currency}`;
    if ('value' in value && 'unit' in value) return `${value.value} ${value.unit}`;
    if ('value' in value && Object.keys(value).length <= 2) return agreementValue(value.value);
    return Object.entries(value)
      .map(([key, inner]) => `${words(key)}: ${agreementValue(inner)}`)
      .join('; ');
  }
  return String(value);
}
