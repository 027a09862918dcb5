// The link (the URL's fragment) describes what is on screen, in either
// mode: back from Encode to Decode it is the decode input's link again;
// an encode link carries "without size prefix"; and encode JSON too long
// for a link says so in encode mode, as decode mode says it of its input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { session } from './helpers-playground.mjs';

// An ApiVersions v3 request, size prefix first.
const QUICK = '0000001b001200030000000700056b7769726500066b7769726504312e3000';

const pg = session();
const { open } = pg;

const hash = (page) => page.evaluate(() => location.hash);
const encodedHex = (page) => page.evaluate(() => document.getElementById('enc-hex').textContent);
// The encode pane's link notice, if any, and whether it shows.
const encNote = (page) => page.evaluate(() => {
  const n = document.querySelector('#encode-pane .pg-link-note, #encode-pane #link-note, #encode-pane [id$="link-note"]');
  return n ? { text: n.textContent, shown: !n.hidden && n.offsetParent !== null } : { text: '', shown: false };
});

// decodedAfter does act and waits for the page to finish the decode it
// starts (body's data-decoded changes).
const decodedAfter = async (page, act) => {
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await act();
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 60_000 });
};

test('Encode then Decode: the link is the decode input\'s again', { timeout: 180_000 }, async () => {
  const page = await open('#hex=' + QUICK);
  await page.waitForFunction(() => document.body.dataset.decoded, null, { timeout: 60_000 });
  const decodeHash = await hash(page);
  assert.match(decodeHash, /^#hex=0000001b0012/);
  await page.click('#mode-encode');
  await page.waitForFunction(() => location.hash.startsWith('#mode=encode&') && document.body.dataset.encoded, null, { timeout: 20_000 });
  await page.click('#mode-decode');
  await page.waitForFunction((h) => location.hash === h, decodeHash, { timeout: 5_000 })
    .catch(async () => assert.fail('back in Decode mode the link is ' + (await hash(page)).slice(0, 60) + ', not ' + decodeHash));
  // ... and stays so once a late encode would have run.
  await page.waitForTimeout(400);
  assert.equal(await hash(page), decodeHash);
  // A new tab on that link opens Decode mode on the input.
  const again = await open(new URL(page.url()).hash);
  await again.waitForFunction(() => document.body.dataset.decoded, null, { timeout: 60_000 });
  assert.equal(await again.evaluate(() => document.getElementById('decode-pane').hidden), false);
  assert.equal(await again.evaluate(() => document.getElementById('encode-pane').hidden), true);
  // Encode again: the encode link is back.
  await page.click('#mode-encode');
  await page.waitForFunction(() => location.hash.startsWith('#mode=encode&'), null, { timeout: 20_000 });
  assert.deepEqual(page.errors, []);
  assert.deepEqual(again.errors, []);
  await page.close(); await again.close();
});

test('an encode link carries "without size prefix"', { timeout: 180_000 }, async () => {
  const page = await open('#hex=' + QUICK);
  await page.waitForFunction(() => document.body.dataset.decoded, null, { timeout: 60_000 });
  await page.click('#mode-encode');
  await page.waitForFunction(() => document.getElementById('enc-hex').textContent.startsWith('0000001b0012'), null, { timeout: 20_000 });
  await page.check('#enc-nosize');
  await page.waitForFunction(() => document.getElementById('enc-hex').textContent.startsWith('00120003'), null, { timeout: 20_000 });
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('size') === 'no', null, { timeout: 5_000 })
    .catch(async () => assert.fail('the encode link does not carry the size prefix choice: ' + (await hash(page)).slice(0, 80)));
  const again = await open(new URL(page.url()).hash);
  await again.waitForFunction(() => document.body.dataset.encoded, null, { timeout: 60_000 });
  assert.equal(await again.evaluate(() => document.getElementById('enc-nosize').checked), true, 'the box is ticked in the new tab');
  assert.match(await encodedHex(again), /^00120003/);
  // Unticked, the link drops it again.
  await page.uncheck('#enc-nosize');
  await page.waitForFunction(() => document.getElementById('enc-hex').textContent.startsWith('0000001b') && !location.hash.includes('size='), null, { timeout: 20_000 });
  assert.deepEqual(page.errors, []);
  assert.deepEqual(again.errors, []);
  await page.close(); await again.close();
});

test('encode JSON too long for a link: encode mode says so, and not once it fits', { timeout: 180_000 }, async () => {
  const page = await open('#hex=' + QUICK);
  await page.waitForFunction(() => document.body.dataset.decoded, null, { timeout: 60_000 });
  await page.click('#mode-encode');
  await page.waitForFunction(() => location.hash.startsWith('#mode=encode&') && document.body.dataset.encoded, null, { timeout: 20_000 });
  const small = await page.evaluate(() => document.getElementById('enc-json').value);
  const v = JSON.parse(small);
  v.body.clientSoftwareName = 'x'.repeat(40_000);
  const big = JSON.stringify(v, null, 2);
  assert.ok(big.length > 32_768);
  assert.equal((await encNote(page)).shown, false, 'no notice while the JSON fits');
  await page.fill('#enc-json', big);
  await page.waitForFunction(() => location.hash === '', null, { timeout: 20_000 });
  await page.waitForFunction(() => {
    const n = document.querySelector('#encode-pane .pg-link-note, #encode-pane #link-note, #encode-pane [id$="link-note"]');
    return n && !n.hidden && n.offsetParent !== null;
  }, null, { timeout: 5_000 }).catch(() => assert.fail('encode mode does not say the link does not carry the JSON'));
  const note = await encNote(page);
  assert.match(note.text, /link/);
  assert.match(note.text, /32768/);
  assert.match(note.text, new RegExp(big.length.toLocaleString('en').replace(/,/g, ',?')));
  // Back to JSON that fits: the link is back and the notice gone.
  await page.fill('#enc-json', small);
  await page.waitForFunction(() => location.hash.startsWith('#mode=encode&'), null, { timeout: 20_000 });
  assert.equal((await encNote(page)).shown, false, 'the notice is gone once the JSON fits');
  // Decode mode's own link and notice are unaffected: its input fits.
  await page.click('#mode-decode');
  await page.waitForFunction(() => location.hash.startsWith('#hex='), null, { timeout: 5_000 });
  assert.equal(await page.evaluate(() => document.getElementById('link-note').hidden), true);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Back and Forward step through the frames and modes the user opened; typing adds no step', { timeout: 180_000 }, async () => {
  const page = await open();
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60_000 });
  const decoded = (act) => decodedAfter(page, act);
  const status = () => page.textContent('#status');
  await decoded(() => page.click('#examples button[data-example="request"]'));
  const first = await hash(page);
  assert.match(first, /^#hex=/);
  await decoded(() => page.click('#examples button[data-example="joingroup"]'));
  const second = await hash(page);
  assert.notEqual(second, first);
  assert.match(await status(), /JoinGroup/);
  // Typing edits the frame on screen: it replaces its step, adds none.
  await decoded(() => page.fill('#input', QUICK));
  const typed = await hash(page);
  assert.match(typed, /^#hex=0000001b0012/);
  await page.click('#mode-encode');
  await page.waitForFunction(() => location.hash.startsWith('#mode=encode&'), null, { timeout: 20_000 });
  const steps = await page.evaluate(() => history.length);

  // Back: decode mode, on the frame typed; Back: the first example; Back:
  // the page as it opened, empty.
  await page.goBack();
  await page.waitForFunction((h) => location.hash === h && !document.getElementById('decode-pane').hidden, typed, { timeout: 20_000 });
  await page.waitForFunction(() => /ApiVersions v3 request/.test(document.getElementById('status').textContent), null, { timeout: 20_000 });
  await page.goBack();
  await page.waitForFunction((h) => location.hash === h, first, { timeout: 20_000 });
  await page.waitForFunction((h) => document.getElementById('input').value.length > 0 && /request/.test(document.getElementById('status').textContent), first, { timeout: 20_000 });
  const firstInput = await page.inputValue('#input');
  assert.ok(first.includes(firstInput.replace(/\s/g, '').slice(0, 40)), 'the first example is back: ' + firstInput.slice(0, 40));
  await page.goBack();
  await page.waitForFunction(() => location.hash === '' && document.getElementById('input').value === '', null, { timeout: 20_000 });
  assert.ok(page.url().includes('/playground/'), 'still the playground: ' + page.url());
  // Forward again, a step at a time (each lands where Back left it), to
  // encode mode. (Presses without waiting are the next test's.)
  await page.goForward();
  await page.waitForFunction((h) => location.hash === h && /request/.test(document.getElementById('status').textContent), first, { timeout: 20_000 });
  await page.goForward();
  await page.waitForFunction((h) => location.hash === h && /ApiVersions v3 request/.test(document.getElementById('status').textContent), typed, { timeout: 20_000 });
  await page.goForward();
  await page.waitForFunction(() => location.hash.startsWith('#mode=encode&') && !document.getElementById('encode-pane').hidden, null, { timeout: 20_000 });
  assert.equal(await page.evaluate(() => history.length), steps, 'no step was added by going back and forth');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Back three times and Forward three times as fast as a user can press
// them, no waiting between: each press lands while the last one's frame is
// still being read. The page must end on the last entry's state (its mode,
// frame and input), and the entries must still be the places the user
// opened: a press must not write the link of the entry it left over the
// entry it came to, nor push a new one (which drops the entries ahead).
test('Back three times then Forward three times, without waiting between presses, ends on each entry\'s own state', { timeout: 180_000 }, async () => {
  const page = await open();
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60_000 });
  const decoded = (act) => decodedAfter(page, act);
  await decoded(() => page.click('#examples button[data-example="request"]'));
  const first = await hash(page);
  const firstInput = await page.inputValue('#input');
  await decoded(() => page.click('#examples button[data-example="joingroup"]'));
  await decoded(() => page.fill('#input', QUICK));
  const typed = await hash(page);
  await page.click('#mode-encode');
  await page.waitForFunction(() => location.hash.startsWith('#mode=encode&') && document.body.dataset.encoded, null, { timeout: 20_000 });
  const enc = await hash(page);
  const encJSON = new URLSearchParams(enc.slice(1)).get('json');
  const steps = await page.evaluate(() => history.length);

  // The state on screen, as the page's controls and URL say it.
  const state = () => page.evaluate(() => ({
    hash: location.hash,
    mode: document.getElementById('encode-pane').hidden ? 'decode' : 'encode',
    input: document.getElementById('input').value,
    status: document.getElementById('status').textContent,
    json: document.getElementById('enc-json').value,
    encStatus: document.getElementById('enc-status').textContent,
  }));
  const settled = async (what, want) => {
    await page.waitForFunction(want, null, { timeout: 20_000, polling: 50 }).catch(async () => {
      assert.fail(what + ': the page is ' + JSON.stringify(await state()).slice(0, 400));
    });
    // ... and stays so once late answers would have come.
    await page.waitForTimeout(600);
    await page.waitForFunction(want, null, { timeout: 1_000 }).catch(async () => {
      assert.fail(what + ', then not: the page is ' + JSON.stringify(await state()).slice(0, 400));
    });
  };

  for (let i = 0; i < 3; i++) await page.goBack();
  await settled('three Backs at once end on the page as it opened', () => location.hash === '' && !document.getElementById('decode-pane').hidden &&
    document.getElementById('input').value === '' && document.getElementById('status').textContent === '');
  for (let i = 0; i < 3; i++) await page.goForward();
  await settled('three Forwards at once end in encode mode on its JSON', new Function('return location.hash === ' + JSON.stringify(enc) +
    ' && !document.getElementById("encode-pane").hidden && document.getElementById("decode-pane").hidden' +
    ' && document.getElementById("enc-json").value === ' + JSON.stringify(encJSON) +
    ' && /ApiVersions v3 request/.test(document.getElementById("enc-status").textContent + document.getElementById("status").textContent)'));
  assert.equal(await page.evaluate(() => history.length), steps, 'no step was added');

  // The entries are still the places the user opened, each with its own
  // frame: a step at a time, Back lands on each.
  await page.goBack();
  await settled('Back from encode mode lands on the frame typed', new Function('return location.hash === ' + JSON.stringify(typed) +
    ' && !document.getElementById("decode-pane").hidden && document.getElementById("input").value === ' + JSON.stringify(QUICK) +
    ' && /ApiVersions v3 request/.test(document.getElementById("status").textContent)'));
  await page.goBack();
  await settled('Back again lands on the first example', new Function('return location.hash === ' + JSON.stringify(first) +
    ' && document.getElementById("input").value === ' + JSON.stringify(firstInput) + ' && /request/.test(document.getElementById("status").textContent)'));
  await page.goBack();
  await settled('Back again lands on the page as it opened', () => location.hash === '' && document.getElementById('input').value === '');
  assert.equal(await page.evaluate(() => history.length), steps, 'no step was added');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// An example clicked while it is on screen is no new place: Back then
// goes back and Forward comes back. (The new place it waited to write
// was pushed at Back, over the entries ahead: Forward went nowhere.)
test('Back after an example clicked again goes back', { timeout: 180_000 }, async () => {
  const page = await open();
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60_000 });
  const decoded = (act) => decodedAfter(page, act);
  await decoded(() => page.click('#examples button[data-example="request"]'));
  const first = await hash(page);
  await decoded(() => page.click('#examples button[data-example="request"]'));
  assert.equal(await hash(page), first);
  const steps = await page.evaluate(() => history.length);
  await page.goBack();
  await page.waitForFunction(() => location.hash === '' && document.getElementById('input').value === '', null, { timeout: 20_000 })
    .catch(async () => assert.fail('Back did not go back: the link is ' + (await hash(page)).slice(0, 40) + ', ' + (await page.evaluate(() => history.length)) + ' entries, not ' + steps));
  await page.waitForTimeout(400);
  assert.equal(await hash(page), '');
  assert.equal(await page.evaluate(() => history.length), steps, 'no entry was added');
  // ... and Forward comes back to the example: its entry is still ahead.
  await page.goForward();
  await page.waitForFunction((h) => location.hash === h && /request/.test(document.getElementById('status').textContent), first, { timeout: 20_000 })
    .catch(async () => assert.fail('Forward did not come back to the example: the link is "' + (await hash(page)).slice(0, 40) + '"'));
  assert.deepEqual(page.errors, []);
  await page.close();
});
