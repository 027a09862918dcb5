// A SaslAuthenticate frame in the playground (real Chromium) shows its
// authBytes as the SASL message they carry: the JSON an object of the
// mechanism, the message and its parts, the tree a row per part, and a
// click on a part's row selects its bytes in the hex dump and the grid.
// The mechanism and the message, which no bytes spell, select nothing
// and break nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { session, decodedJSON } from './helpers-playground.mjs';

// SaslAuthenticate v2 request (kwire example SaslAuthenticate --version 2):
// body at 33, authBytes' compact length at 33, then
// "n,,n=alice,r=rOprNGfwEbeRWgbNEkqO" [34, 67): "alice" is [39, 44).
const SCRAM = '0000004000240002000000070012636f6e73756d65722d62696c6c696e672d3100226e2c2c6e3d616c6963652c723d724f70724e476677456265525767624e456b714f00';

const pg = session();

test('authBytes show the SASL message; a part selects its bytes', { timeout: 180_000 }, async () => {
  const page = await pg.open('#hex=' + SCRAM);
  await page.waitForFunction(() => document.body.dataset.decoded && document.querySelectorAll('#tree .pg-row').length > 0, null, { timeout: 60_000 });
  const js = await decodedJSON(page);
  assert.deepEqual(js.body.authBytes, {
    mechanism: 'SCRAM', message: 'client-first', channelBindingFlag: 'n', username: 'alice', nonce: 'rOprNGfwEbeRWgbNEkqO',
  });
  const rows = await page.$$eval('#tree .pg-row .pg-name', (ns) => ns.map((n) => n.textContent));
  for (const name of ['authBytes', 'mechanism', 'message', 'channelBindingFlag', 'username', 'nonce']) {
    assert.ok(rows.includes(name), name + ' in the tree: ' + JSON.stringify(rows));
  }
  const typ = await page.$$eval('#tree .pg-row', (rs) => rs.map((r) => r.textContent).find((t) => t.includes('authBytes')));
  assert.match(typ, /SASL SCRAM client-first/);

  // select clicks name's tree row and waits until the JSON pane has
  // selected the line holding line (the pane follows the tree a moment
  // later), then reads what every view selected.
  const select = async (name, line) => {
    await page.click(`#tree .pg-row:has(.pg-name:text-is("${name}"))`);
    await page.waitForFunction((n) => document.querySelector('#tree .pg-row.pg-sel .pg-name')?.textContent === n, name, { timeout: 10_000 });
    await page.waitForFunction((l) => [...document.querySelectorAll('#json .pg-row.pg-sel')].some((r) => r.textContent.includes(l)), line, { timeout: 10_000 })
      .catch(() => {}); // the assertions below say what was selected instead
    return page.evaluate(() => ({
      desc: document.getElementById('sel-desc').textContent,
      hex: [...document.querySelectorAll('#hex .pg-byte.pg-sel')].map((b) => +b.dataset.off),
      json: [...document.querySelectorAll('#json .pg-row.pg-sel')].map((r) => r.textContent.trim()),
    }));
  };
  const user = await select('username', '"username": "alice"');
  assert.deepEqual(user.hex, [39, 40, 41, 42, 43], 'username selects "alice": ' + JSON.stringify(user));
  assert.ok(user.json.some((l) => l.includes('"username": "alice"')), JSON.stringify(user.json));
  const mech = await select('mechanism', '"mechanism": "SCRAM"');
  assert.deepEqual(mech.hex, [], 'the mechanism spells no bytes: ' + JSON.stringify(mech));
  assert.ok(mech.json.some((l) => l.includes('"mechanism": "SCRAM"')), JSON.stringify(mech.json));
  assert.deepEqual(page.errors, []);
  await page.close();
});
