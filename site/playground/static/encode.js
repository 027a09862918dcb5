// Encode mode: value JSON in, bytes out, drawn back as the decoder reads
// them (panel 2); an error points at its place in the JSON text. The text
// box and the JSON it holds (kept out of it past PASTE_INLINE characters,
// as decode mode keeps a big paste: the page stays quick) are encbox.js.
import { $, el, toHex, debounce, showError, shown } from './dom.js';
import { rpc } from './rpc.js';
import { showSelection } from './panel.js';
import { st, LINK_MAX, PASTE_INLINE } from './state.js';
import { encodeText, replaceJSON, undoReplace, typed as boxTyped, showLines, drawLines, boxOffset } from './encbox.js';

export { encodeText, replaceJSON } from './encbox.js';

// ENC_HEX_SHOWN is the most bytes encode mode writes out as hex; Copy hex
// copies them all.
const ENC_HEX_SHOWN = 4096;
// LOCATE_MAX is the longest JSON (characters) an error's path is looked
// for in: 8 Mi, some 130 ms (a 1 MB frame's JSON is 5.4 M).
const LOCATE_MAX = 8 << 20;

export function setMode(m) {
  $('mode-decode').setAttribute('aria-selected', String(m === 'decode'));
  $('mode-encode').setAttribute('aria-selected', String(m === 'encode'));
  // The tabs pattern: the selected tab is the one tab stop.
  $('mode-decode').tabIndex = m === 'decode' ? 0 : -1;
  $('mode-encode').tabIndex = m === 'encode' ? 0 : -1;
  $('decode-pane').hidden = m !== 'decode';
  $('encode-pane').hidden = m !== 'encode';
  showLink(m);
  // The selection bar is the mode's: its own selection, or none.
  const p = m === 'encode' ? st.panels[2] : st.activeDecode;
  showSelection(p && p.sel ? p : null);
}

// Each mode keeps its own link (the fragment, without '#') and the notice
// said when its input is too large for one, and the URL is the link of the
// mode on screen: back in decode mode it is the decode input's link again,
// not the JSON last encoded. null: the mode has not written one yet (the
// URL is left as it is: a #live link, one just opened).
const links = { decode: null, encode: null };

const modeNow = () => ($('encode-pane').hidden ? 'decode' : 'encode');

// putLink records mode's link and notice, and shows them if that mode is
// on screen.
export function putLink(mode, hash, note = '') {
  links[mode] = { hash, note };
  if (modeNow() === mode) showLink(mode);
}

// decodeLink is decode mode's link ('' if none).
export const decodeLink = () => (links.decode ? links.decode.hash : '');

// encNote is encode mode's notice about its link, made here beside the
// options (the decode pane's #link-note is hidden in encode mode).
function encNote() {
  let n = $('enc-link-note');
  if (!n) {
    n = el('p', 'pg-status pg-link-note');
    n.id = 'enc-link-note';
    n.hidden = true;
    $('encode-pane').querySelector('.pg-opts').after(n);
  }
  return n;
}

// pushNext says the next link written is a new place in the browser's
// history (an example, a file, the other mode: Back returns from it),
// not the current one edited (typing replaces the link as it goes).
let pushNext = false;
export function newLink() { pushNext = true; }

// arrived says the browser went to another entry of its history (Back,
// Forward, a link followed): its URL is mode's link now. Without it the
// link the mode held, the entry's left, was written over the entry
// arrived at (setMode shows it), and a new place not yet written
// (newLink) was pushed, dropping the entries ahead: Back three times at
// once ended on a frame, not the page as it opened.
export function arrived(mode) {
  links[mode] = { hash: location.hash.slice(1), note: '' };
  pushNext = false;
}

function showLink(m) {
  const l = links[m];
  if (!l) return;
  if (('#' + l.hash) !== location.hash && (l.hash || location.hash)) {
    const url = l.hash ? '#' + l.hash : location.pathname + location.search;
    if (pushNext) history.pushState(null, '', url); else history.replaceState(null, '', url);
    pushNext = false;
  }
  const n = m === 'encode' ? encNote() : $('link-note');
  n.textContent = l.note; // the note holds only numbers the page counted
  n.hidden = !l.note;
}

// typed is a change the user made in the text box: taken (encbox.js),
// then encoded.
export function typed() {
  boxTyped();
  runEncode();
}

// enterEncode shows encode mode with the JSON of the frame decode mode
// shows, when it is another than the one the JSON came from (edits to it
// can be had back); back from decode mode with the same frame, the JSON
// is as the user left it.
export async function enterEncode() {
  setMode('encode');
  const sum = st.panels[0].sum;
  if (sum && !sum.error && sum !== st.encFrom) {
    // The frame's JSON as one text (the worker joins its lines). A decode
    // may start meanwhile (a version typed, its change event at this
    // click): the JSON is then of the frame the worker holds, drawn next.
    const js = await st.panels[0].rpc('jsonText');
    st.encFrom = st.panels[0].sum || sum;
    replaceJSON(js, 'This frame\'s JSON');
    $('enc-nosize').checked = !sum.sizePrefix;
    $('ex-api').value = sum.apiKey; $('ex-ver').value = sum.apiVersion; $('ex-dir').value = sum.direction;
    runEncode();
  } else if (!encodeText().trim()) {
    await loadExample();
  } else if (!st.encGen) runEncode();
  // Else the JSON and its frame (panel 2, with its selection) are as the
  // user left them.
}

export async function loadExample() {
  const v = $('ex-ver').value.trim();
  if (!/^\d+$/.test(v) || +v > 32767) {
    // As decode mode's Version: an int16 from 0, never cut to 16 bits.
    showError($('enc-error'), 'The version ' + (v || '(empty)') + ' is not one: a version is a whole number from 0 to 32767.', $('ex-ver'));
    return;
  }
  const js = await rpc('example', +$('ex-api').value, +$('ex-ver').value, $('ex-dir').value === 'response');
  if (!js) { showError($('enc-error'), 'No example: ' + $('ex-dir').value + ' version ' + $('ex-ver').value + ' is not defined for this API.', $('ex-ver')); return; }
  replaceJSON(js, 'The example');
  runEncode();
}

// undo gives back the edited JSON an example or a frame's JSON replaced.
export function undo() {
  if (undoReplace()) runEncode();
}

// indexOf is the index in text of a 1-based line and column (in
// characters, as the worker counts them).
function indexOf(text, line, column) {
  let i = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', i);
    if (nl < 0) return text.length;
    i = nl + 1;
  }
  for (let c = 1; c < column && i < text.length; c++) i += text.codePointAt(i) > 0xffff ? 2 : 1;
  return i;
}

// jumpToError selects the place of the last encode error in the JSON and
// scrolls it into view.
export function jumpToError() {
  const at = st.encErrorAt, ta = $('enc-json');
  if (!at) return;
  const off = boxOffset(at[0]); // the box may hold a window of the JSON
  ta.focus();
  ta.setSelectionRange(off, off + at[1]);
  const lh = parseFloat(getComputedStyle(ta).lineHeight) || 16;
  ta.scrollTop = Math.max(0, (ta.value.slice(0, off).split('\n').length - 5) * lh);
  drawLines();
}

function lineCol(text, off) {
  const before = text.slice(0, off);
  const line = before.split('\n').length;
  return 'line ' + line + ', column ' + (off - before.lastIndexOf('\n'));
}

// locate finds where a value-JSON path ("body.topics[0].name") is in the
// text: the offset and length of the deepest key or element on it.
function locate(text, target) {
  let i = 0, best = null;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const str = () => { const s = i; i++; while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1; i++; return text.slice(s, i); };
  const on = (p) => target === p || target.startsWith(p + '.') || target.startsWith(p + '[');
  const value = (path, depth) => {
    ws();
    if (depth > 200 || i >= text.length) return;
    const c = text[i];
    if (c === '{') {
      i++; ws();
      while (i < text.length && text[i] !== '}') {
        ws();
        const at = i;
        let key;
        try { key = JSON.parse(str()); } catch { return; }
        const p = path ? path + '.' + key : key;
        if (on(p)) best = [at, key.length + 2];
        ws(); if (text[i] === ':') i++;
        value(p, depth + 1);
        ws(); if (text[i] === ',') i++; else break;
      }
      i++;
    } else if (c === '[') {
      i++; ws();
      for (let n = 0; i < text.length && text[i] !== ']'; n++) {
        ws();
        const p = path + '[' + n + ']';
        if (on(p)) best = [i, 1];
        value(p, depth + 1);
        ws(); if (text[i] === ',') i++; else break;
      }
      i++;
    } else if (c === '"') str();
    else { while (i < text.length && !',}] \t\r\n'.includes(text[i])) i++; }
  };
  value('', 0);
  return best;
}

// setEncodeLink puts the JSON being encoded into the fragment, so a link
// reproduces encode mode too (as long as the text fits a link).
function setEncodeLink(text) {
  if (text.length > LINK_MAX) {
    putLink('encode', '', 'This JSON (' + text.length.toLocaleString('en') + ' characters) is longer than the ' + LINK_MAX +
      ' characters a link holds, so the link does not carry it.');
    return;
  }
  const p = new URLSearchParams();
  p.set('mode', 'encode');
  p.set('json', text);
  if ($('enc-nosize').checked) p.set('size', 'no');
  putLink('encode', p.toString());
}

// runEncode encodes the JSON soon: once typing has paused, longer for
// megabytes of JSON (edited in the box a window at a time).
const encodeSoon = debounce(() => encodeNow(), 120);
const encodeLater = debounce(() => encodeNow(), 800);
export function runEncode() {
  const big = st.encText ? !!st.encText.win : $('enc-json').value.length >= PASTE_INLINE;
  if (big) { encodeSoon.cancel(); encodeLater(); } else { encodeLater.cancel(); encodeSoon(); }
}

// notJSON says what text that is not JSON is instead: 'hex' when it reads
// as a frame's hex (a dump's too), which is decode mode's input; else ''.
async function notJSON(text) {
  const t = text.trim();
  if (!t || '{["'.includes(t[0])) return '';
  const r = await rpc('parse', t, 'hex');
  return !r.error && r.bytes.length >= 4 ? 'hex' : '';
}

async function encodeNow() {
  encodeSoon.cancel(); encodeLater.cancel();
  const text = encodeText();
  // The text is in the box, or a window of it: errors can point into it.
  const boxed = !st.encText || !!st.encText.win;
  if (!st.encText) showLines(text);
  setEncodeLink(text);
  const gen = ++st.encGen;
  const r = await rpc('encode', text, $('enc-nosize').checked);
  if (gen !== st.encGen) return;
  const ep = st.panels[2];
  $('enc-not-json').hidden = true;
  if (r.error) {
    const e = r.error;
    // locate reads the JSON up to its end (some 16 ns a character): 40 MB
    // took 0.6 s in one task, so the place is found only in shorter JSON.
    let at = e.path && boxed && text.length <= LOCATE_MAX ? locate(text, e.path) : null;
    const other = e.line ? await notJSON(text) : '';
    if (gen !== st.encGen) return;
    if (other) {
      // Bytes in the wrong mode, said as kwire encode says it, with a
      // way to decode them.
      at = null;
      showError($('enc-error'), other + ', not JSON: encode mode reads the JSON of a frame; decode mode reads its ' + other + '.');
      $('enc-not-json').hidden = false;
    } else if (e.line) {
      // A syntax error: its line and column, and the place to jump to.
      at = boxed ? [indexOf(text, e.line, e.column), 1] : null;
      showError($('enc-error'), 'The JSON does not parse at line ' + e.line + ', column ' + e.column + ': ' + e.syntax + '.');
    } else {
      showError($('enc-error'), (e.path ? 'At ' + e.path + (at ? ' (' + lineCol(text, at[0]) + ')' : '') + ': ' : '') + e.message);
    }
    st.encErrorAt = at;
    // The way there is a button named for where it goes.
    $('enc-error-go').textContent = at ? 'Go to ' + lineCol(text, at[0]) + ' in the JSON' : '';
    $('enc-error-jump').hidden = !at;
    // The alert above says the error, once: the status says nothing more
    // (it said "Not encoded: the error is above." after it, again at
    // every keystroke).
    $('enc-status').textContent = '';
    document.body.dataset.encError = String(gen);
    $('enc-hex').textContent = '';
    st.encoded = null; st.encEnv = null;
    $('enc-copy-hex').disabled = $('enc-copy-b64').disabled = true;
    ep.clear();
    return;
  }
  showError($('enc-error'), '');
  $('enc-error-jump').hidden = true;
  st.encErrorAt = null;
  $('enc-status').textContent = r.bytes.length + ' bytes; decoding them back…';
  st.encoded = r.bytes;
  // The envelope, read by the worker (the JSON can be megabytes).
  const env = st.encEnv = r.env || {};
  $('enc-hex').textContent = r.bytes.length > ENC_HEX_SHOWN
    ? toHex(r.bytes.subarray(0, ENC_HEX_SHOWN)) + '… (' + (r.bytes.length - ENC_HEX_SHOWN).toLocaleString('en') + ' more bytes: Copy hex copies them all)'
    : toHex(r.bytes);
  $('enc-copy-hex').disabled = $('enc-copy-b64').disabled = false;
  // The encoded frame, drawn as the decoder reads it back.
  const resp = env.direction === 'response';
  const sum = await ep.decode(r.bytes, { response: resp, api: env.apiKey, version: env.apiVersion, size: $('enc-nosize').checked ? 'no' : 'yes' }, 'Encoded');
  if (gen !== st.encGen) return;
  $('enc-status').textContent = shown(r.bytes.length + ' bytes' + (sum.error ? '; they do not decode back (the error is below)' : '; decoded back below') +
    (r.notGiven ? '. N' + r.notGiven.slice(1) : '')); // "Not given, written as its default ...: body.acks"
  document.body.dataset.encoded = String(gen);
}
