// The playground's shared state: every field any module reads or writes is
// declared here, once, with what it holds. The object is sealed, so a
// field that is not declared here cannot be added by accident elsewhere
// (modules are strict: such an assignment throws).

// Limits and sizes the modules share.
export const LINK_MAX = 32 << 10; // bytes (or JSON characters) kept in a permalink
export const HINT_MAX = 64 << 10; // largest request checked for a response reading
export const GRID_ROW = 36; // a grid row's height in pixels
export const LINE = 22; // a tree, JSON or hex line's height in pixels
export const PASTE_INLINE = 256 << 10; // longest text (characters) put in the text box; longer is kept aside

export const st = Object.seal({
  // The decoder module.
  ready: false, // the module answered init: decoding runs at once
  load: null, // the last download progress event: {phase, loaded, total}
  apis: [], // every API the module knows: [{key, name, ...}]
  byKey: new Map(), // those APIs by key
  apisReady: null, // a promise that apis and byKey are filled

  // Decode mode.
  file: null, // {name, bytes} of an opened binary file (the text box is then empty)
  pasted: null, // {text, name?} a large paste or text file, kept out of the text box (too long to edit there)
  picked: null, // a frame picked from a list (back-to-back frames): {bytes, format}
  modeByPage: false, // the Input select was set by the page (a link, an example, encode mode's bytes), not the user: new text sets it back to auto
  gen: 0, // decode generation: an answer for an older one is dropped
  sum: null, // the summary of the frame shown in panel 0 (null: nothing shown)
  keyLog: null, // a TLS key log the user gave, which decrypts the captures opened: {name, bytes} (several files: their names joined, their bytes one after another)
  capture: null, // an open capture or live feed: {summary, frames, rows, sort, current, dump?, live?} (dump: read from a text of packets' dumps, {packets, name, times})
  storage: null, // opened storage files: {files, result, current} (storage.js)
  panels: [], // the Panels: 0 the frame (a capture's request), 1 a capture's response, 2 encode mode's bytes
  active: null, // the panel whose selection the selection bar shows (null: the bar is hidden): one of the mode on screen
  activeDecode: null, // decode mode's panel last selected in (0 or 1), whose selection the bar shows again back in decode mode

  // Record payloads (payloads.js): the schemas the user gave.
  schemas: { files: new Map(), url: '' }, // files: name -> text; url: the registry's URL ('' none)
  payloads: false, // payload.wasm runs the ops (the user gave schemas once)

  // Encode mode.
  encGen: 0, // encode generation, as gen for decoding
  encoded: null, // the bytes last encoded (Uint8Array), for copying and "Decode these bytes"
  encEnv: null, // the envelope of the JSON last encoded: {direction, apiKey, apiVersion}
  encText: null, // JSON too long for the text box (past PASTE_INLINE characters), encoded from here: {text, name, win, lines}; the box is then empty, or holds the window win: {from, to, line, lines} (characters [from, to) of text, its lines from line, from 0; lines: the text's, counted once it is in windows)
  encEdited: false, // the user changed the JSON since the page last put some there
  encUndo: null, // the edited JSON an example or a frame's JSON replaced, until the next edit: {text, name}
  encFrom: null, // the summary of decode mode's frame whose JSON encode mode took (the same frame back in encode mode: the JSON is left as it is)
  encErrorAt: null, // where the last encode error is in the JSON text: [offset, length]

  // For tests and measurement (read through window.kwirePlayground).
  copied: null, // the text last put on the clipboard
  sentAt: 0, // when the last decode was sent to the worker (ms since the epoch)
  lastDecodeMs: 0, // the last decode's time until drawn (ms)
  firstScreenMs: 0, // the last decode's time until the next frame was painted (ms)
  timing: null, // the last decode's timings: {sentAt, decodeRPC, worker, firstScreen}
  warmUp: null, // the worker's warm-up, once over: {ms (its steps' time in all), decodes (of its records frame), of (those it meant to run)}

  lastHash: '', // the fragment the page last wrote (a hashchange to it is the page's own)
});
