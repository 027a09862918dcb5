// Encode mode's text box: the JSON being encoded, what of it the box
// holds, the line numbers beside it, and the user's edits, which the page
// never drops without a way back.
//
// JSON past PASTE_INLINE characters (a big frame's) is kept out of the
// box (st.encText), as decode mode keeps a big paste. "Edit it here"
// puts it in the box a window of whole lines at a time (WIN_CHARS), and
// edits go into the whole: a 1 MB Fetch's JSON (5.4 MB, 140,000 lines) in
// one text box is 2 to 5 s of Chromium's layout in one task, whatever
// the page does around it, and as long again at each keystroke.
import { $, el } from './dom.js';
import { st, PASTE_INLINE } from './state.js';

// WIN_CHARS is the most characters of big JSON the box holds at once
// (some 1,500 lines of a frame's JSON: laid out and painted in well under 200 ms).
const WIN_CHARS = 60_000;

// encodeText is the JSON being encoded: the text box's, or the JSON kept
// aside when too long for it (st.encText), of which the box may hold a
// window.
export const encodeText = () => (st.encText ? st.encText.text : $('enc-json').value);

function countLines(v) {
  let n = 1;
  for (let i = v.indexOf('\n'); i >= 0; i = v.indexOf('\n', i + 1)) n++;
  return n;
}

// putJSON puts JSON in the text box or, past PASTE_INLINE characters,
// keeps it aside (st.encText) and says so, with the JSON offered as a
// file or in the box a part at a time. It is the page's JSON, not the
// user's: not edited (replaceJSON keeps edits it replaces).
export function putJSON(text, name) {
  const ta = $('enc-json');
  ta.placeholder = '';
  st.encEdited = false;
  $('enc-win').hidden = true;
  $('enc-big-edit').hidden = false;
  if (text.length < PASTE_INLINE) {
    st.encText = null;
    ta.value = text;
    $('enc-big').hidden = true;
  } else {
    st.encText = { text, name, win: null, lines: 0 };
    ta.value = '';
    const n = text.length.toLocaleString('en');
    ta.placeholder = name + ': ' + n + ' characters, encoded (not shown here, to keep the page quick); type or paste here to replace it';
    $('enc-big-text').textContent = name + ' is ' + n + ' characters of JSON, too long for the text box without holding the page up: it is encoded as it is.';
    $('enc-big').hidden = false;
  }
  showLines(ta.value);
}

// replaceJSON puts the page's JSON (an example, a frame's) in place of
// the JSON being encoded; edits it replaces can be had back (Undo).
// Asking first would stop every deliberate click for the rare mistaken
// one; an undo costs the deliberate click nothing.
export function replaceJSON(text, name) {
  const old = st.encEdited ? { text: encodeText(), name: st.encText ? st.encText.name : '' } : null;
  putJSON(text, name);
  if (old && old.text !== text) {
    st.encUndo = old;
    $('enc-undo-text').textContent = name + ' replaced your edited JSON.';
    $('enc-undo').hidden = false;
  } else dropUndo();
}

// undoReplace gives back the edited JSON replaceJSON replaced.
export function undoReplace() {
  const u = st.encUndo;
  if (!u) return false;
  dropUndo();
  putJSON(u.text, u.name || 'Your edited JSON');
  st.encEdited = true;
  return true;
}

function dropUndo() {
  st.encUndo = null;
  $('enc-undo').hidden = true;
}

// typed takes a change the user made in the text box: into the window of
// big JSON the box holds, else in place of JSON kept aside.
export function typed() {
  const t = st.encText, ta = $('enc-json');
  st.encEdited = true;
  dropUndo();
  if (t && t.win) {
    const box = ta.value;
    t.text = t.text.slice(0, t.win.from) + box + t.text.slice(t.win.to);
    t.win.to = t.win.from + box.length;
    showLines(box);
    t.lines += gutter.n - t.win.lines; // the lines the edit added
    describeWindow();
    return;
  }
  if (t) {
    st.encText = null;
    $('enc-big').hidden = true;
    ta.placeholder = '';
  }
  showLines();
}

// editAnyway puts JSON kept aside in the text box, as the user asked: its
// first window of lines. The JSON is unchanged: what was encoded stands.
export function editAnyway() {
  if (!st.encText) return;
  showWindow(0);
  $('enc-json').focus();
}

// lineStart is where line l (from 0) of text starts.
function lineStart(text, l) {
  let i = 0;
  for (let k = 0; k < l; k++) {
    const nl = text.indexOf('\n', i);
    if (nl < 0) return text.length;
    i = nl + 1;
  }
  return i;
}

// showWindow puts in the box the whole lines of the big JSON from line l
// (from 0) on, up to WIN_CHARS characters (one line at least).
export function showWindow(l) {
  const t = st.encText, text = t.text;
  const from = lineStart(text, Math.max(0, l));
  let to = text.indexOf('\n', from);
  if (to < 0) to = text.length;
  while (to < text.length) {
    const nl = text.indexOf('\n', to + 1), end = nl < 0 ? text.length : nl;
    if (end - from > WIN_CHARS) break;
    to = end;
  }
  t.win = { from, to, line: Math.max(0, l), lines: 0 };
  if (!t.lines) t.lines = countLines(text);
  const ta = $('enc-json');
  ta.placeholder = '';
  const box = text.slice(from, to);
  ta.value = box;
  ta.setSelectionRange(0, 0); // the caret at the window's start, not its end
  ta.scrollTop = 0;
  showLines(box);
  describeWindow();
}

// nextWindow and prevWindow move the box a window on or back.
export function nextWindow() {
  const w = st.encText && st.encText.win;
  if (w && w.to < st.encText.text.length) showWindow(w.line + w.lines);
}
export function prevWindow() {
  const t = st.encText, w = t && t.win;
  if (!w || w.from === 0) return;
  // Back over whole lines, up to WIN_CHARS characters before the window.
  let p = w.from - 1, lines = 0;
  while (p >= 0) {
    const s = p === 0 ? 0 : t.text.lastIndexOf('\n', p - 1) + 1;
    if (lines > 0 && w.from - s > WIN_CHARS) break;
    lines++;
    p = s - 1;
  }
  showWindow(w.line - lines);
}

// boxOffset is where offset off of the JSON being encoded is in the box,
// the box moved to the lines around it first when it holds a window
// elsewhere.
export function boxOffset(off) {
  const t = st.encText, w = t && t.win;
  if (!w) return off;
  if (off < w.from || off > w.to) {
    let line = 0;
    for (let i = t.text.indexOf('\n'); i >= 0 && i < off; i = t.text.indexOf('\n', i + 1)) line++;
    showWindow(Math.max(0, line - 20));
  }
  return off - t.win.from;
}

// describeWindow says which lines the box holds.
function describeWindow() {
  const t = st.encText, w = t.win, total = t.lines, f = (n) => n.toLocaleString('en');
  w.lines = gutter.n;
  $('enc-big-text').textContent = 'Lines ' + f(w.line + 1) + '–' + f(w.line + w.lines) + ' of ' + f(total) + ' of ' + t.name.replace(/^(The|This) /, (m) => m.toLowerCase()) +
    ' are in the box (' + f(t.text.length) + ' characters at once would hold the page up for seconds); edits go into the whole JSON, which is what is encoded.';
  $('enc-win-prev').disabled = w.from === 0;
  $('enc-win-next').disabled = w.to >= t.text.length;
  $('enc-big-edit').hidden = true;
  $('enc-win').hidden = false;
  $('enc-big').hidden = false;
}

// showLines numbers the box's lines in the gutter beside it (from the
// window's first line when the box holds a window): counted once for a
// new text (text, when given, is the box's value: each read of a text
// box's value copies it, and the read a line that counted them made "Edit
// it here anyway" on a 1 MB frame's JSON hold the page for 7.5 s), drawn
// for the lines in view only (drawLines, again as the box scrolls).
const gutter = { n: 1, base: 0, from: -1, to: -1 };
export function showLines(text) {
  const n = countLines(text === undefined ? $('enc-json').value : text);
  const base = st.encText && st.encText.win ? st.encText.win.line : 0;
  if (n !== gutter.n || base !== gutter.base) { gutter.n = n; gutter.base = base; gutter.from = -1; }
  drawLines();
}

// drawLines writes the gutter's numbers for the lines in view and some
// around them, between spacers as tall as the lines above and below
// them, and scrolls it with the box.
export function drawLines() {
  const ta = $('enc-json'), g = $('enc-lines');
  const lh = parseFloat(getComputedStyle(g).lineHeight) || 16;
  const from = Math.max(0, Math.floor(ta.scrollTop / lh) - 50);
  const to = Math.min(gutter.n, from + Math.ceil((ta.clientHeight || 600) / lh) + 100);
  if (from !== gutter.from || to !== gutter.to) {
    gutter.from = from; gutter.to = to;
    const nums = [];
    for (let k = from + 1; k <= to; k++) nums.push(gutter.base + k);
    const above = el('div'), below = el('div');
    above.style.height = (from * lh) + 'px';
    // Below the numbers: room for the box's last lines and its scroll bar.
    below.style.height = ((gutter.n - to) * lh + 32) + 'px';
    g.replaceChildren(above, document.createTextNode(nums.join('\n')), below);
  }
  g.scrollTop = ta.scrollTop;
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
