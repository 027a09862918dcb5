// npm test: the browser and Worker tests under node's runner, with the
// playground built once for all of them rather than once per file (23
// files: 14 s of work each when Go's cache is warm, and 59 MB of
// modules and inputs each, which filled a CI machine's disk while every
// build was left behind). The build is named to the files by
// KWIRE_E2E_BUILT (helpers-playground.mjs, build) and removed at the end.
// Arguments are node --test's (files, --test-name-pattern); none means
// every file in e2e/. The run fails if a test left a kwire-* folder or
// file in the temporary directory.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInto } from './helpers-playground.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const ours = async () => new Set((await readdir(tmpdir())).filter((f) => f.startsWith('kwire-')));
const gb = async () => { const s = await statfs(tmpdir()); return (s.bavail * s.bsize / 2 ** 30).toFixed(1) + ' GiB'; };

const before = await ours();
const dir = await mkdtemp(join(tmpdir(), 'kwire-e2e-'));
let code = 1;
try {
  const t0 = Date.now();
  await buildInto(dir);
  console.log('# the playground was built once for every file, in ' + ((Date.now() - t0) / 1000).toFixed(1) + ' s; ' + (await gb()) + ' free in ' + tmpdir());
  const child = spawn(process.execPath, ['--test', ...(args.length ? args : [here])], {
    stdio: 'inherit',
    env: { ...process.env, KWIRE_E2E_BUILT: dir },
  });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  code = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
} finally {
  await rm(dir, { recursive: true, force: true });
}
const left = [...(await ours())].filter((f) => !before.has(f));
if (left.length) {
  console.log('# left in ' + tmpdir() + ' by the tests (each must remove what it writes): ' + left.join(', '));
  if (code === 0) code = 1;
}
console.log('# ' + (await gb()) + ' free in ' + tmpdir() + ' at the end');
process.exit(code);
