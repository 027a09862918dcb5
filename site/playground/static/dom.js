// Small helpers every module uses: elements, hex and base64, debouncing,
// and the status and error lines. Text that came from a frame is only
// ever set with textContent or as an attribute value, never parsed as HTML,
// and with its invisible characters escaped (shown): el, status and
// showError escape the text they set.

export const $ = (id) => document.getElementById(id);

// INVISIBLE matches the characters that draw as nothing, or that reorder
// the text around them: controls other than tab and line ends, Unicode's
// format characters (the bidirectional embeddings, overrides, isolates
// and marks, U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C; the
// zero-width space, joiners and word joiner; the byte order mark; the
// soft hyphen; tag characters), the line and paragraph separators, and
// the blank fillers (the combining grapheme joiner, Hangul's fillers,
// Khmer's inherent vowels). A frame's text holding them could draw as
// other text than it is ("abc\u202edcba-evil" as "abcevil-abcd"); the
// grid and the command line show them escaped, and so does the page.
const INVISIBLE = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\p{Cf}\u2028\u2029\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0]/gu;

// shown is text with each invisible character written as its escape,
// \uXXXX (a pair of them, UTF-16's surrogates, past U+FFFF): inside a
// JSON string, still JSON for the same string.
export function shown(text) {
  const s = String(text);
  return s.replace(INVISIBLE, (c) => {
    let out = '';
    for (let i = 0; i < c.length; i++) out += '\\u' + c.charCodeAt(i).toString(16).padStart(4, '0');
    return out;
  });
}

// WIDE matches a character drawn two columns wide: Unicode's East Asian
// Wide and Fullwidth ones (EastAsianWidth W and F: Hangul's leading
// jamo, the CJK radicals, ideographs, kana, symbols and punctuation, Yi,
// Hangul's syllables, the compatibility ideographs and the fullwidth
// forms; Tangut, Khitan and the kana supplements; the planes of the
// ideographs past U+FFFF) and the emoji drawn as pictures by default
// (Emoji_Presentation). It over-counts rather than under-counts (a flag's
// two regional indicators, a skin tone's modifier): a column a little wide
// is better than a cell cut.
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{16fe4}\u{17000}-\u{18cff}\u{1aff0}-\u{1b2ff}\u{1f200}-\u{1f2ff}\u{20000}-\u{3fffd}\p{Emoji_Presentation}]/gu;

// textWidth is how many columns text takes, as terminals count them: a
// code point one, a wide one (WIDE) two. A width in ch from it fits the
// text (the table of storage.js sizes its columns so): counting UTF-16
// units, as String's length does, made 20 ideographs 20ch, half of what
// they take, and the cell ended in an ellipsis.
export function textWidth(text) {
  const s = String(text);
  if (!/[^\0-\u10ff]/.test(s)) return s.length; // (no wide character, no surrogate pair)
  const pairs = s.match(/[\ud800-\udbff][\udc00-\udfff]/g), wide = s.match(WIDE);
  return s.length - (pairs ? pairs.length : 0) + (wide ? wide.length : 0);
}

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = shown(text);
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

// grouped is a count with its thousands marked, as toLocaleString('en')
// writes it (20,000), without its cost: the first call in a page loads
// the locale's data, 40 to 350 ms of the main thread, which fell in the
// task that drew a listing's first rows.
export const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

// inputNote sets the input text box's placeholder: what the page shows
// that the box does not hold while it is empty (a binary file, a long
// paste, storage files, a folder), its invisible characters escaped; or,
// given nothing, the example the page opened with, once what it named is
// no longer shown (the box typed in or cleared, a new frame pasted, a
// link or an example followed, the live feed opened).
const INPUT_EXAMPLE = $('input') ? $('input').placeholder : '';
export function inputNote(what = '') {
  $('input').placeholder = what ? shown(what) : INPUT_EXAMPLE;
}

export function status(text) {
  $('status').textContent = shown(text);
}
// showError shows text in the error box box, or hides it (text empty).
// The field the error is about (field, else the one the box's data-for
// names) is marked invalid and described by the box, so that coming back
// to it says the error again; cleared, it is neither.
export function showError(box, text, field = box.dataset.for ? $(box.dataset.for) : null) {
  const was = box.dataset.tied ? $(box.dataset.tied) : null;
  if (was && (was !== field || !text)) {
    was.removeAttribute('aria-invalid');
    was.removeAttribute('aria-describedby');
    delete box.dataset.tied;
  }
  if (text && field) {
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-describedby', box.id);
    box.dataset.tied = field.id;
  }
  // The box is a live region (an alert): an error that stays as it was
  // (the next keystroke's encode finding it again) is left alone, not
  // said again.
  const t = text ? shown(text) : '';
  if (box.textContent !== t) box.textContent = t;
  box.hidden = !text;
}
