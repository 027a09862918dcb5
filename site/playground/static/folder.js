// Folders dropped or opened ("Open folder…"): a partition's folder
// (orders-0/, as a broker's log.dirs holds it) or a log.dirs folder with
// several partitions in it. Its files are read as `kwire log DIR` reads a
// directory: a partition's together, so that its indexes, .txnindex and
// leader-epoch-checkpoint are checked against its segments, and the log
// end too (all of the folder's segments are there). A log.dirs folder's
// partitions are each checked on their own, as kwire log checks each
// partition directory: one is shown, the others are listed to pick from.
//
// What is read is bounded: MAX_FILES files, and the folder given and one
// level of subfolders (a log.dirs folder's partitions); what was left out
// is said. Names come from the user's disk: shown as text only.
import { isStorageName } from './storage.js';

export const MAX_FILES = 500;

// readDir lists a FileSystemDirectoryEntry's entries: readEntries answers
// some at a time (100 in Chromium) until it answers none. At most limit
// are kept; more says whether there were others.
async function readDir(dir, limit) {
  const reader = dir.createReader();
  const out = [];
  for (;;) {
    const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
    if (!batch.length) return { entries: out, more: false };
    for (const e of batch) {
      if (out.length >= limit) return { entries: out, more: true };
      out.push(e);
    }
  }
}

const fileOf = (entry) => new Promise((res, rej) => entry.file(res, rej));

// filesOfEntries reads the entries dropped (FileSystemEntry: files and
// folders) into {files: [{path, file}], left}: path is the file's place
// under what was dropped ("orders-0/00000000000000000000.log"), left
// what was not read ({deeper: folder paths below the one level read,
// overflow: whether MAX_FILES was reached}).
export async function filesOfEntries(entries) {
  const files = [], left = { deeper: [], overflow: false };
  // The files dropped beside folders come first: few, and given by name,
  // they are read even when a folder's files reach the bound.
  entries = [...entries.filter((e) => e.isFile), ...entries.filter((e) => !e.isFile)];
  async function walk(entry, path, depth) {
    if (files.length >= MAX_FILES) { left.overflow = true; return; }
    if (entry.isFile) {
      files.push({ path, file: await fileOf(entry) });
      return;
    }
    if (!entry.isDirectory) return;
    // The folder dropped and its subfolders; a subfolder's own are left.
    if (depth > 1) { left.deeper.push(path); return; }
    const { entries: es, more } = await readDir(entry, MAX_FILES - files.length + 1);
    if (more) left.overflow = true;
    es.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of es) await walk(e, path + '/' + e.name, depth + 1);
  }
  for (const e of entries) await walk(e, e.name, 0);
  return { files, left };
}

// filesOfInput is filesOfEntries for a webkitdirectory input's files
// (which the browser lists whole, every level down): their paths are
// their webkitRelativePath, the same bounds apply.
export function filesOfInput(list) {
  const files = [], left = { deeper: [], overflow: false };
  const deeper = new Set();
  const all = [...list].map((f) => ({ path: f.webkitRelativePath || f.name, file: f }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const x of all) {
    const parts = x.path.split('/');
    if (parts.length > 3) { deeper.add(parts.slice(0, 3).join('/')); continue; }
    if (files.length >= MAX_FILES) { left.overflow = true; continue; }
    files.push(x);
  }
  left.deeper = [...deeper];
  return { files, left };
}

// dirOf is a path's folder ('' for a file given on its own).
const dirOf = (path) => path.slice(0, Math.max(0, path.lastIndexOf('/')));
const baseOf = (path) => path.slice(path.lastIndexOf('/') + 1);

// INTERNAL are the internal topics whose records the page decodes
// (through Kafka's schemas for them, not the schemas the user gives).
export const INTERNAL = ['__consumer_offsets', '__transaction_state', '__share_group_state', '__cluster_metadata', '__remote_log_metadata'];

// topicOf is the topic a partition folder's name gives, as kwire log
// takes it (storage.PartitionDir): Kafka names a partition's directory
// <topic>-<partition> ("orders-0": orders), and one being deleted, moved
// or left stray <topic>-<partition>.<id>-delete (-future, -stray); else ''
// (the topic is not known: the module guesses among the internal topics,
// and the user may type it). An ordinary topic's name is its too: the
// schemas named by it (orders-value.avsc, orders-key.proto) then apply.
export function topicOf(dir) {
  let name = baseOf(dir);
  const dot = name.lastIndexOf('.');
  if (dot > 0 && /-(delete|future|stray)$/.test(name)) name = name.slice(0, dot);
  const dash = name.lastIndexOf('-');
  if (dash <= 0) return '';
  const p = name.slice(dash + 1);
  // strconv.ParseInt's: an optional sign, digits, an int32 not below 0.
  if (!/^[+-]?\d+$/.test(p) || +p < 0 || +p > 2147483647) return '';
  return name.slice(0, dash);
}

// partitions groups the files read into the folders that hold them
// (each a partition, or a log.dirs folder's own checkpoints), Kafka's
// files only (by their names): {groups: [{dir, files: [{name, file}],
// segments}], others: the paths of the files not Kafka's}. A file marked
// stored is Kafka's whatever its name (a segment renamed, told by its
// bytes). The groups come in path order; a folder without a Kafka file is
// not one.
export function partitions(files) {
  const byDir = new Map(), others = [];
  for (const { path, file, stored } of files) {
    const name = baseOf(path);
    if (!stored && !isStorageName(name)) { others.push(path); continue; }
    const dir = dirOf(path);
    if (!byDir.has(dir)) byDir.set(dir, { dir, files: [], segments: 0 });
    const g = byDir.get(dir);
    g.files.push({ name, file });
    if (/^\d{20}\.log$/.test(name) || stored) g.segments++;
  }
  const groups = [...byDir.values()].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  return { groups, others };
}

// firstShown is the group shown first: the first that holds a segment (a
// log.dirs folder's own checkpoints come first by path, its partitions
// are what is looked at), else the first.
export function firstShown(groups) {
  // A folder's before the files dropped beside it (their set's dir is ''),
  // which come first by path.
  let i = groups.findIndex((g) => g.segments > 0 && g.dir);
  if (i < 0) i = groups.findIndex((g) => g.segments > 0);
  return i < 0 ? 0 : i;
}

// leftOut says what was not read, or ''.
export function leftOut(left, others) {
  const said = [];
  const some = (xs) => xs.slice(0, 3).join(', ') + (xs.length > 3 ? ' and ' + (xs.length - 3) + ' more' : '');
  if (left.overflow) said.push('the files past the first ' + MAX_FILES + ' (open a partition\'s folder on its own to read all of its)');
  if (left.deeper.length) said.push('the folders more than one level down (' + some(left.deeper) + ')');
  if (others.length) said.push(others.length + ' file' + (others.length === 1 ? '' : 's') + ' not named as Kafka names its files (' + some(others) + ')');
  return said.length ? 'Left out: ' + said.join('; ') + '.' : '';
}
