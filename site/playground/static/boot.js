// Starts the decoder's worker (worker.js: the module's download, compile
// and start) while the page's head is parsed, before the page's ES
// modules have loaded: the module graph is three levels deep, and waiting
// for it delayed the download by as long as the modules took. rpc.js
// takes the worker over, with the messages it sent meanwhile (download
// progress, ready).
'use strict';
self.kwireBoot = { worker: new Worker('worker.js'), early: [] };
self.kwireBoot.worker.onmessage = (e) => self.kwireBoot.early.push(e);
