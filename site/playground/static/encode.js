// Encode mode: value JSON in, bytes out, drawn back as the decoder reads
// them (panel 2); an error points at its place in the JSON text. JSON
// past PASTE_INLINE characters (a big frame's) is kept out of the text
// box, as decode mode keeps a big paste: the page stays quick.
import { $, el, toHex, debounce, showError, shown } from './dom.js';
import { rpc } from './rpc.js';
import { showSelection } from './panel.js';
import { st, LINK_MAX, PASTE_INLINE } from './state.js';

// ENC_HEX_SHOWN is the most bytes encode mode writes out as hex; Copy hex
// copies them all.
const ENC_HEX_SHOWN = 4096;

export function setMode(m) {
  $('mode-decode').setAttribute('aria-selected', String(m === 'decode'));
  $('mode-encode').setAttribute('aria-selected', String(m === 'encode'));
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

function showLink(m) {
  const l = links[m];
  if (!l) return;
  if (('#' + l.hash) !== location.hash && (l.hash || location.hash)) {
    history.replaceState(null, '', l.hash ? '#' + l.hash : location.pathname + location.search);
  }
  const n = m === 'encode' ? encNote() : $('link-note');
  n.textContent = l.note; // the note holds only numbers the page counted
  n.hidden = !l.note;
}

// encodeText is the JSON being encoded: the text box's, or the JSON kept
// aside when too long for it (st.encText).
export const encodeText = () => (st.encText ? st.encText.text : $('enc-json').value);

// putJSON puts JSON in the text box or, past PASTE_INLINE characters,
// keeps it aside (st.encText) and says so, with the JSON offered as a
// file or in the box anyway: megabytes of text in a text box hold the
// page for seconds when put there, and for a second at each keystroke.
export function putJSON(text, name) {
  const ta = $('enc-json');
  ta.placeholder = '';
  if (text.length < PASTE_INLINE) {
    st.encText = null;
    ta.value = text;
    $('enc-big').hidden = true;
  } else {
    st.encText = { text, name };
    ta.value = '';
    const n = text.length.toLocaleString('en');
    ta.placeholder = name + ': ' + n + ' characters, encoded (not shown here, to keep the page quick); type or paste here to replace it';
    $('enc-big-text').textContent = name + ' is ' + n + ' characters of JSON, too long to edit here without holding the page up: it is encoded as it is.';
    $('enc-big').hidden = false;
  }
  showLines();
}

// typed is a change the user made in the text box: it replaces JSON
// kept aside.
export function typed() {
  if (st.encText) {
    st.encText = null;
    $('enc-big').hidden = true;
    $('enc-json').placeholder = '';
  }
  showLines();
  runEncode();
}

// editAnyway puts JSON kept aside in the text box, as the user asked.
export function editAnyway() {
  const t = st.encText;
  if (!t) return;
  st.encText = null;
  $('enc-big').hidden = true;
  $('enc-json').placeholder = '';
  $('enc-json').value = t.text;
  showLines();
  runEncode();
}

// saveJSON downloads the JSON being encoded as a file.
export function saveJSON() {
  const env = st.encEnv || {};
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([encodeText()], { type: 'application/json' }));
  a.download = (env.apiKey !== undefined ? 'api' + env.apiKey + '-v' + env.apiVersion + '-' + (env.direction || 'request') : 'frame') + '.json';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}

export async function enterEncode() {
  setMode('encode');
  const sum = st.panels[0].sum;
  if (sum && !sum.error) {
    // The frame's JSON as one text (the worker joins its lines).
    putJSON(await st.panels[0].rpc('jsonText'), 'This frame\'s JSON');
    $('enc-nosize').checked = !sum.sizePrefix;
    $('ex-api').value = sum.apiKey; $('ex-ver').value = sum.apiVersion; $('ex-dir').value = sum.direction;
  } else if (!encodeText().trim()) {
    await loadExample();
  }
  runEncode();
}

export async function loadExample() {
  const v = $('ex-ver').value.trim();
  if (!/^\d+$/.test(v) || +v > 32767) {
    // As decode mode's Version: an int16 from 0, never cut to 16 bits.
    showError($('enc-error'), 'The version ' + (v || '(empty)') + ' is not one: a version is a whole number from 0 to 32767.');
    return;
  }
  const js = await rpc('example', +$('ex-api').value, +$('ex-ver').value, $('ex-dir').value === 'response');
  if (!js) { showError($('enc-error'), 'No example: ' + $('ex-dir').value + ' version ' + $('ex-ver').value + ' is not defined for this API.'); return; }
  putJSON(js, 'The example');
  runEncode();
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

// showLines numbers the JSON's lines in the gutter beside it.
export function showLines() {
  const ta = $('enc-json'), g = $('enc-lines');
  let n = 1;
  for (let i = ta.value.indexOf('\n'); i >= 0; i = ta.value.indexOf('\n', i + 1)) n++;
  if (g.dataset.n !== String(n)) {
    g.dataset.n = String(n);
    g.textContent = Array.from({ length: n }, (_, k) => k + 1).join('\n');
  }
  g.scrollTop = ta.scrollTop;
}

// jumpToError selects the place of the last encode error in the JSON and
// scrolls it into view.
export function jumpToError() {
  const at = st.encErrorAt, ta = $('enc-json');
  if (!at) return;
  ta.focus();
  ta.setSelectionRange(at[0], at[0] + at[1]);
  const lh = parseFloat(getComputedStyle(ta).lineHeight) || 16;
  ta.scrollTop = Math.max(0, (ta.value.slice(0, at[0]).split('\n').length - 5) * lh);
  showLines();
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

// runEncode encodes the JSON soon: once typing has paused, longer in a
// text box holding megabytes (edited there anyway).
const encodeSoon = debounce(() => encodeNow(), 120);
const encodeLater = debounce(() => encodeNow(), 800);
export function runEncode() {
  if (!st.encText && $('enc-json').value.length >= PASTE_INLINE) { encodeSoon.cancel(); encodeLater(); } else { encodeLater.cancel(); encodeSoon(); }
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
  const boxed = !st.encText; // the text is in the box: errors can point into it
  if (boxed) showLines();
  setEncodeLink(text);
  const gen = ++st.encGen;
  const r = await rpc('encode', text, $('enc-nosize').checked);
  if (gen !== st.encGen) return;
  const ep = st.panels[2];
  $('enc-not-json').hidden = true;
  if (r.error) {
    const e = r.error;
    let at = e.path && boxed ? locate(text, e.path) : null;
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
      showError($('enc-error'), 'The JSON does not parse at line ' + e.line + ', column ' + e.column + ': ' + e.syntax + '.' + (at ? ' Click here to go there.' : ''));
    } else {
      showError($('enc-error'), (e.path ? 'At ' + e.path + (at ? ' (' + lineCol(text, at[0]) + ')' : '') + ': ' : '') + e.message +
        (at ? '. Click here to go there.' : ''));
    }
    st.encErrorAt = at;
    $('enc-status').textContent = 'Not encoded: the error is above.';
    document.body.dataset.encError = String(gen);
    $('enc-hex').textContent = '';
    st.encoded = null; st.encEnv = null;
    $('enc-copy-hex').disabled = $('enc-copy-b64').disabled = true;
    ep.clear();
    return;
  }
  showError($('enc-error'), '');
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
  $('enc-status').textContent = shown(r.bytes.length + ' bytes' + (sum.error ? '; they do not decode back: ' + sum.error.message : '; decoded back below'));
  document.body.dataset.encoded = String(gen);
}
