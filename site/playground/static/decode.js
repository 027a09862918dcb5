// Decode mode: reading the input (text through the worker's parser, or an
// opened file), deciding what it is (one frame, back-to-back frames, a
// capture), picking the reading of a response, and drawing the frame in
// panel 0 with its status line and permalink.
import { $, el, debounce, status, showError } from './dom.js';
import { rpc } from './rpc.js';
import { st, HINT_MAX } from './state.js';
import { confidence, frameName, nodesText } from './views.js';
import { openCapture, closeCapture } from './capture.js';
import { setLink } from './link.js';
import { afterDecode } from './payloads.js';

// BIG_INPUT is the input size (bytes of a file, characters of text) from
// which the page shows a decoding state at once: a result takes long
// enough then to need a sign of life.
const BIG_INPUT = 64 << 10;

// decodingState replaces the last result with a note that the input is
// being read: the old frame's views go at once.
export function decodingState(text) {
  clearViews();
  $('frames').hidden = true;
  status(text);
  document.body.dataset.decoding = String(st.gen);
}

export function looksLikeCapture(b) {
  if (b.length < 4) return false;
  const m = (b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]) >>> 0;
  return m === 0xa1b2c3d4 || m === 0xd4c3b2a1 || m === 0xa1b23c4d || m === 0x4d3cb2a1 || m === 0x0a0d0d0a || (b[0] === 0x1f && b[1] === 0x8b);
}
function options() {
  const dir = $('dir').value, api = $('api').value, ver = $('ver').value;
  return { response: dir === 'response', api: api === 'auto' ? null : +api, version: ver === '' ? null : +ver, size: $('size').value };
}

// versionError says what is wrong with the Version field, or '' when it
// is empty (automatic) or a version: a whole number from 0 to 32767 (an
// int16, as Kafka's versions are). A version out of that range would be
// cut to 16 bits (40000 read as -25536) or read as "any" (-1), so it is
// refused at the field rather than decoded as some other version.
export function versionError() {
  const f = $('ver'), v = f.value.trim();
  let err = '';
  if (f.validity && f.validity.badInput) err = 'The version is not a number: give a whole number from 0 to 32767, or leave it empty to have it guessed.';
  else if (v !== '' && !(/^\d+$/.test(v) && +v <= 32767)) {
    err = 'The version ' + v + ' is not one: a version is a whole number from 0 to 32767; give one, or leave it empty to have it guessed.';
  }
  f.setCustomValidity(err);
  if (err) f.setAttribute('aria-invalid', 'true'); else f.removeAttribute('aria-invalid');
  return err;
}

export const run = debounce(() => decodeInput(), 200);
// redoSoon is redo once the version field has been still a while (it is
// typed digit by digit); a decode begun meanwhile reads the field itself,
// so it cancels this.
export const redoSoon = debounce(() => redo(), 200);

// single shows one panel (a frame) instead of a capture's pair.
function single() {
  st.panels[1].hidden = true;
  st.panels[1].clear();
  st.panels[0].e.title.hidden = false;
  $('panels').classList.remove('pg-pair');
}

export function resetOutput() {
  showError($('input-error'), '');
  $('guesses').hidden = true;
  $('hint').hidden = true;
}

export async function decodeInput() {
  run.cancel();
  redoSoon.cancel();
  st.picked = null;
  const gen = ++st.gen;
  let bytes, format;
  resetOutput();
  const text = st.file ? '' : st.pasted ? st.pasted.text : $('input').value;
  // A large input shows that it is being read at once, in place of the
  // last result, which no longer stands for what is in the box.
  if ((st.file ? st.file.bytes.length : text.length) >= BIG_INPUT) {
    decodingState(st.file ? 'Decoding ' + st.file.name + ' (' + st.file.bytes.length.toLocaleString('en') + ' bytes)…'
      : 'Reading ' + text.length.toLocaleString('en') + ' characters of text, then decoding…');
  }
  if (!st.ready) status('The decoder is still loading; these bytes will be decoded as soon as it is ready.');
  if (st.file) {
    bytes = st.file.bytes; format = 'binary file ' + st.file.name;
  } else {
    if (!text.trim()) { clearViews(); status(''); setLink(null); return; }
    const r = await rpc('parse', text, $('mode').value);
    if (gen !== st.gen) return;
    if (r.error) {
      const failed = () => {
        clearViews();
        status('');
        delete document.body.dataset.decoding;
        const mode = $('mode').value === 'auto' ? '' : ' as ' + $('mode').value;
        showError($('input-error'), 'These bytes could not be read' + mode + (r.line ? ': line ' + r.line + ', column ' + r.column : '') + ': ' + r.error + '.');
        setLink(null);
      };
      // Several packets' dumps (tshark -x of a capture) are no frame: the
      // capture module reads them as the capture they were printed from,
      // as kwire pcap does; if they are no such text after all, the
      // parse's error stands.
      if (r.packets) {
        $('frames').hidden = true;
        await openCapture(new TextEncoder().encode(text), gen, failed);
        return;
      }
      failed();
      return;
    }
    bytes = r.bytes; format = r.format + (r.packet ? ' (' + r.packet + ')' : '');
    if (r.frames) { showFrames(bytes, r.frames, format, gen); return; }
  }
  $('frames').hidden = true;
  if (looksLikeCapture(bytes)) {
    await openCapture(bytes, gen);
    return;
  }
  closeCapture();
  await decodeBytes(bytes, format, gen);
}

export async function decodeBytes(bytes, format, gen) {
  const o = options();
  resetOutput();
  single();
  const bad = versionError();
  if (bad) {
    clearViews();
    status('');
    delete document.body.dataset.decoding;
    showError($('input-error'), bad, $('ver'));
    setLink(null);
    return;
  }
  if (o.response && (o.api === null || o.version === null)) {
    // The guess keeps to the API or the version given, whichever it is.
    const cands = await rpc('guess', bytes, o.size, o.api ?? -1, o.version ?? -1);
    if (gen !== st.gen) return;
    const given = o.api !== null ? 'API as given' : o.version !== null ? 'version ' + o.version + ' as given' : '';
    if (cands.length) {
      showGuesses('Automatic' + (given ? ' (' + given + ')' : '') + ': the readings that decode every byte, most likely first', cands, bytes, format, gen);
      return decodeWith(bytes, format, gen, { response: true, api: cands[0].apiKey, version: cands[0].version, size: o.size },
        (o.api !== null ? 'version guessed, ' : o.version !== null ? 'API guessed, version as given, ' : 'guessed, ') + confidence(cands[0].confidence));
    }
    // Nothing reads every byte (a truncated frame, say): show the readings
    // that got furthest, and draw the first with its error at its byte.
    const part = (await rpc('partial', bytes, o.size)).filter((c) => (o.api === null || c.apiKey === o.api) && (o.version === null || c.version === o.version));
    if (gen !== st.gen) return;
    if (!part.length) {
      clearViews();
      delete document.body.dataset.decoding;
      showError($('input-error'), (o.version !== null ? 'No API reads this response as version ' + o.version + ', even in part' : 'No API and version reads this response, even in part') +
        (bytes.length > HINT_MAX ? ' (frames over 64 KiB are not tried every way)' : '') +
        (o.version !== null ? ': choose the API, or another version, or leave the version empty to have it guessed.' : ': choose them above.'));
      return;
    }
    showGuesses('No reading decodes every byte (is the frame cut short?); these read furthest before an error:', part, bytes, format, gen);
    return decodeWith(bytes, format, gen, { response: true, api: part[0].apiKey, version: part[0].version, size: o.size },
      'no reading fits every byte; showing the one that reads furthest');
  }
  return decodeWith(bytes, format, gen, o);
}

async function decodeWith(bytes, format, gen, o, note) {
  const p = st.panels[0];
  const t0 = performance.now();
  st.sentAt = performance.timeOrigin + t0;
  p.bytes = bytes;
  const sum = await p.rpc('decode', bytes, { response: o.response, api: o.api || 0, version: o.version || 0, size: o.size });
  if (gen !== st.gen) return;
  const tDecoded = performance.now() - t0;
  p.show(sum);
  st.sum = sum;
  delete document.body.dataset.decoding;
  status(format + ', ' + bytes.length + ' bytes: ' + frameName(sum) +
    (note ? ' (' + note + ')' : '') + (sum.sizePrefix ? '' : ', no size prefix') + ', ' + nodesText(sum));
  setLink(bytes, o, sum);
  if (!o.response && sum.error) responseHint(bytes, o, gen, sum);
  afterDecode();
  st.lastDecodeMs = performance.now() - t0;
  await new Promise((r) => requestAnimationFrame(() => r()));
  st.firstScreenMs = performance.now() - t0;
  st.timing = { sentAt: st.sentAt, decodeRPC: tDecoded, worker: sum.timing, firstScreen: st.firstScreenMs };
  document.body.dataset.decoded = String(gen);
}

// responseHint offers the response reading of bytes that fail as a request.
async function responseHint(bytes, o, gen, sum) {
  if (bytes.length > HINT_MAX) return;
  const cands = await rpc('guess', bytes, o.size);
  if (gen !== st.gen || !cands.length) return;
  const c = cands[0];
  const h = $('hint');
  h.replaceChildren();
  h.appendChild(el('span', '', 'These bytes do not read as a request (decoding stops at byte ' + sum.error.offset + '), but they read cleanly as a response: ' +
    (c.apiName || 'API ' + c.apiKey) + ' v' + c.version + (c.versions.length ? ' (the same bytes as v' + c.versions.join(', v') + ')' : '') +
    ', ' + confidence(c.confidence) + '. '));
  const b = el('button', '', 'Decode as a ' + (c.apiName || 'API ' + c.apiKey) + ' v' + c.version + ' response');
  b.id = 'hint-switch';
  b.addEventListener('click', () => {
    $('dir').value = 'response'; $('api').value = String(c.apiKey); $('ver').value = c.version;
    redo();
  });
  h.appendChild(b);
  h.hidden = false;
}

export function clearViews() {
  for (const p of st.panels.slice(0, 2)) p.clear();
  st.sum = null;
}

function showGuesses(title, cands, bytes, format, gen) {
  const g = $('guesses');
  g.replaceChildren(el('h3', '', title));
  cands.forEach((c, i) => {
    const what = (c.apiName || 'API ' + c.apiKey) + ' v' + c.version;
    const text = c.offset !== undefined
      ? what + ': reads to byte ' + c.offset + ', then ' + c.message.replace(/^at byte \d+( \([^)]*\))?: /, '')
      : what + (c.versions.length ? ' (same as v' + c.versions.join(', v') + ')' : '') + ': ' + confidence(c.confidence) +
        (c.doubts.length ? '; doubts: ' + c.doubts.join('; ') : '');
    const b = el('button', '', text);
    b.dataset.api = c.apiKey; b.dataset.version = c.version;
    if (i === 0) b.setAttribute('aria-current', 'true');
    b.addEventListener('click', () => {
      for (const x of g.querySelectorAll('button')) x.removeAttribute('aria-current');
      b.setAttribute('aria-current', 'true');
      decodeWith(bytes, format, ++st.gen, { response: true, api: c.apiKey, version: c.version, size: $('size').value }, 'picked from the list');
    });
    g.appendChild(b);
  });
  g.hidden = false;
}

// showFrames lists back-to-back frames found in one input and decodes the
// first; each can be picked.
function showFrames(bytes, offs, format, gen) {
  const box = $('frames');
  closeCapture();
  box.replaceChildren(el('h3', '', (offs.length - 1) + ' frames, back to back'));
  const pick = (i, b, g) => {
    for (const x of box.querySelectorAll('button')) x.setAttribute('aria-current', String(x === b));
    st.picked = { bytes: bytes.subarray(offs[i], offs[i + 1]), format: format + ' frame ' + (i + 1) + ' of ' + (offs.length - 1) };
    decodeBytes(st.picked.bytes, st.picked.format, g);
  };
  for (let i = 0; i + 1 < offs.length; i++) {
    const b = el('button', '', 'frame ' + (i + 1) + ': bytes [' + offs[i] + ', ' + offs[i + 1] + ')');
    b.dataset.frame = i;
    b.addEventListener('click', () => pick(i, b, ++st.gen));
    box.appendChild(b);
  }
  box.hidden = false;
  pick(0, box.querySelector('button'), gen);
}

// A frame picked from a list is decoded again with the new options;
// otherwise the input is read again. Not while storage files are shown:
// they replaced the input (leaveFrame), and the frame options are hidden
// with them; a change that comes then is the tail of an edit made before
// (a Version typed, the files opened without leaving the field: its
// change comes as the field hides), which decoded the frame gone over
// the files' listing, dropping it.
export function redo() {
  if (st.storage) return;
  if (st.picked) { run.cancel(); decodeBytes(st.picked.bytes, st.picked.format, ++st.gen); } else run();
}

// leaveFrame drops what stood for the input once storage files replace
// it: its decode still waiting (the text typed, the Version's digits),
// the frame picked from a list, the frame drawn, and what was drawn to
// act on it (the back-to-back frames, the readings guessed, the response
// hint, the input's error), whose buttons decoded a frame beside the
// storage view, or set the frame options hidden behind it. A big input's
// decode in flight (decodingState) is dropped when it answers, as it
// stands for an input no longer shown (a later generation): its
// "decoding" state goes now, or nothing would clear it, and the page
// would say a decode runs while the storage view shows (and until the
// next frame decoded).
export function leaveFrame() {
  run.cancel();
  redoSoon.cancel();
  st.picked = null;
  resetOutput();
  $('frames').hidden = true;
  clearViews();
  delete document.body.dataset.decoding;
}
