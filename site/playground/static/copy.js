// Copying a selection or encode mode's bytes and JSON: to the clipboard
// when the browser allows it (st.copied keeps the text either way).
import { $, toHex, toB64, status, shown } from './dom.js';
import { st } from './state.js';
import { encodeText } from './encode.js';

export async function copyText(text, what) {
  st.copied = text;
  try { await navigator.clipboard.writeText(text); status('Copied ' + what + ' (' + text.length + ' characters).'); return true; } catch { return false; }
}
export async function copy(kind) {
  const p = st.active, s = p && p.sel;
  if (!s) return;
  let text;
  if (kind === 'json') text = s.node >= 0 ? await p.rpc('nodeJSON', s.node) : '';
  else {
    const b = await p.rpc('slice', s.buf, s.start, s.end);
    text = kind === 'hex' ? toHex(b) : toB64(b);
  }
  if (!await copyText(text, kind)) {
    status('The browser refused the clipboard; the text is in the selection bar.');
    $('sel-desc').textContent = shown(text.slice(0, 2000));
  }
}
export async function encCopy(kind) {
  const text = kind === 'json' ? encodeText() : st.encoded ? (kind === 'hex' ? toHex(st.encoded) : toB64(st.encoded)) : '';
  if (!text) return;
  const ok = await copyText(text, kind);
  $('enc-status').textContent = ok ? 'Copied ' + kind + ' (' + text.length + ' characters).' : 'The browser refused the clipboard.';
}
