// Small helpers every module uses: elements, hex and base64, debouncing,
// and the status and error lines. Text that came from a frame is only
// ever set with textContent or as an attribute value, never parsed as HTML.

export const $ = (id) => document.getElementById(id);

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export const hex2 = (b) => (b < 16 ? '0' : '') + b.toString(16);
export const toHex = (bytes) => Array.from(bytes, hex2).join('');
export function toB64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
export function fromB64(s) {
  const bin = atob(s);
  const b = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
  return b;
}

export function debounce(fn, ms) {
  let t = 0;
  const f = (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
  f.cancel = () => clearTimeout(t);
  return f;
}

export const mb = (n) => (n / 1e6).toFixed(1) + ' MB';

export function status(text) {
  $('status').textContent = text;
}
export function showError(box, text) { box.hidden = !text; box.textContent = text || ''; }
