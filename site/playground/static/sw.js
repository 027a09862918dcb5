// Offline support: every file of the playground is cached as it is
// fetched (network first, cache when offline), and the core files are
// cached at install.
'use strict';
// The page's modules are listed one by one (site/playground_test.go checks
// that every script in the folder is here).
const CORE = ['./', 'index.html', 'style.css', 'grid.css', 'boot.js', 'worker.js', 'wasm_exec.js', 'kwire.wasm', 'examples.json',
  'app.js', 'state.js', 'dom.js', 'rpc.js', 'virtual.js', 'views.js', 'panel.js', 'decode.js', 'capture.js', 'storage.js', 'strows.js', 'folder.js', 'live.js', 'link.js', 'encode.js', 'encbox.js', 'copy.js', 'payloads.js'];
// The site gives files content-hashed names and rewrites them here, so a
// new build has a new cache name and the old cache is dropped.
const CACHE = 'kwire-playground ' + CORE.join(' ');

self.addEventListener('install', (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => Promise.all(CORE.map((u) => c.add(u).catch(() => {})))).then(() => self.skipWaiting()));
});
self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith('kwire-playground') && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});
self.addEventListener('fetch', (e) => {
  const req = e.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== location.origin) return;
  // A live feed (kwire proxy's events) never ends: not for the cache.
  if ((req.headers.get('accept') || '').includes('text/event-stream')) return;
  e.respondWith(fetch(req).then((res) => {
    if (res.ok) { const copy = res.clone(); caches.open(CACHE).then((c) => c.put(req, copy)); }
    return res;
  }).catch(() => caches.match(req, { ignoreSearch: true }).then((r) => r || caches.match('index.html'))));
});
