// Numbers, dates and field names as an analyst reads them. Pure functions of their input.

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const precise = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });

/**
 * A number with the unit the API names: `fraction` (0.05 is 5 %), `ratio` (a multiple), `currency`
 * (an amount in the statements' currency), `count`, `score`, or a currency code (`USD`).
 */
export function number(value, unit = '') {
  if (value === null || value === undefined || value === '') return '—';
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  const u = String(unit ?? '');
  if (u === 'fraction') return percent(n);
  if (u === 'ratio') return `${plain(n)}×`;
  if (u === 'currency') return compact(n);
  if (u === 'count') return integer.format(n);
  if (/^[A-Z]{3}$/.test(u)) return `${compact(n)} ${u}`;
  return plain(n);
}

function plain(n) {
  return Math.abs(n) >= 1000 ? integer.format(n) : Math.abs(n) >= 1 ? decimal.format(n) : precise.format(n);
}

/** 1 234 567 890 → "1.23 bn". */
export function compact(n) {
  const abs = Math.abs(n);
  if (abs >= 1e12) return `${decimal.format(n / 1e12)} tn`;
  if (abs >= 1e9) return `${decimal.format(n / 1e9)} bn`;
  if (abs >= 1e6) return `${decimal.format(n / 1e6)} m`;
  return plain(n);
}

/** A fraction (0.25) as a percentage ("25 %"). */
export function percent(fraction) {
  if (fraction === null || fraction === undefined || !Number.isFinite(Number(fraction))) return '—';
  const value = Number(fraction) * 100;
  // No "-0 %": a zero is a zero whichever side it was rounded from.
  return `${decimal.format(Math.abs(value) < 0.005 ? 0 : value)} %`;
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
