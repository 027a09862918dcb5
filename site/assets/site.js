// kwire reference pages: the search every page offers (over search.json),
// the index's filter and release column, the version switcher, and
// selection between the byte grid and the decoded tree (click, tap or
// keyboard). The pages read fine without it.
(function () {
  "use strict";

  // ---- search: every page's box, search.html, and the index's filter ----

  var searchForm = document.querySelector("form.search");
  var root = searchForm ? searchForm.getAttribute("data-root") : "";
  var indexPromise = null;
  // loadIndex fetches search.json once, on first use.
  var loadIndex = function () {
    if (!indexPromise) {
      indexPromise = fetch(root + "search.json").then(function (r) {
        if (!r.ok) throw new Error("search.json: " + r.status);
        return r.json();
      });
    }
    return indexPromise;
  };

  var kindOrder = { version: 0, api: 1, error: 2, enum: 3, field: 4, page: 5 };
  var squash = function (s) { return s.toLowerCase().replace(/[\s_.-]+/g, ""); };
  var range = function (lo, hi) { return lo === hi ? "v" + lo : "v" + lo + "–" + hi; };
  var dirWords = { request: "req", requests: "req", req: "req", response: "resp", responses: "resp", resp: "resp" };

  // terms reads a query of several words as a person means it: an API
  // named by one or more of them ("produce", "describe groups"), a version
  // ("v4", or a number after the API), a direction ("response"), "api key
  // 18" or "key 18", "error 3" or "error code 3"; what is left (rest) names
  // a field or says what one means.
  var terms = function (q, apiByName) {
    var t = q.split(" "), r = { api: null, v: null, dir: null, key: null, code: null, rest: [] };
    var m = q.match(/^(?:api ?key|key|api) ?#?(-?\d+)$/);
    if (m) { r.key = +m[1]; return r; }
    m = q.match(/^(?:error ?code|error|err|code) ?#?(-?\d+)$/);
    if (m) { r.code = +m[1]; return r; }
    for (var i = 0; i < t.length; i++) {
      var w = t[i], vm = w.match(/^v(\d+)$/);
      if (dirWords[w] && !r.dir) { r.dir = dirWords[w]; continue; }
      if (vm && r.v === null) { r.v = +vm[1]; continue; }
      if (!r.api) {
        // The longest run of words from here that names an API.
        for (var j = t.length; j > i && !apiByName[squash(t.slice(i, j).join(""))]; j--);
        if (j > i) { r.api = apiByName[squash(t.slice(i, j).join(""))]; i = j - 1; continue; }
      }
      if (r.api && r.v === null && /^\d+$/.test(w) && r.rest.length === 0) { r.v = +w; continue; }
      r.rest.push(w);
    }
    return r;
  };

  // search ranks what the index holds against a query: an API and version
  // ("produce v9"), API names and keys, error names and codes, enumeration
  // values, field names, what fields mean, and the reference pages; of
  // several words, all together (see terms), and results are one per place.
  var search = function (idx, text) {
    var q = text.trim().toLowerCase().replace(/\s+/g, " ");
    var out = [];
    if (!q) return out;
    var qs = squash(q);
    var add = function (score, kind, label, detail, href) {
      out.push({ score: score, kind: kind, label: label, detail: detail, href: href });
    };
    var apiByName = {};
    idx.apis.forEach(function (a) {
      apiByName[squash(a[1])] = a;
      a[5].forEach(function (o) { apiByName[squash(o)] = a; });
    });
    // An API and a version: "produce v9", "produce 9", "fetchv4".
    var mv = q.match(/^(.*?)\s*v\s*(\d+)$/) || q.match(/^(.*\D)\s+(\d+)$/);
    if (mv && apiByName[squash(mv[1])]) {
      var a = apiByName[squash(mv[1])], v = +mv[2];
      if (v >= a[3] && v <= a[4]) add(1000, "version", a[1] + " v" + v, "API key " + a[0] + " · request and response, byte by byte", "api/" + a[2] + "/v" + v + ".html");
      else add(990, "api", a[1], "has versions " + a[3] + "–" + a[4] + ", not v" + v, "api/" + a[2] + "/index.html");
    }
    var num = /^-?\d+$/.test(q) ? +q : null;
    // Several words: every one must match, each in its place (see terms).
    var tm = q.indexOf(" ") > 0 ? terms(q, apiByName) : null;
    if (tm && tm.key !== null) {
      idx.apis.forEach(function (a) {
        if (a[0] === tm.key) add(960, "api", a[1], "API key " + a[0] + " · versions " + a[3] + "–" + a[4] + " · " + a[6], "api/" + a[2] + "/index.html");
      });
    }
    if (tm && tm.code !== null) {
      idx.errors.forEach(function (e) {
        if (e[0] === tm.code) add(960, "error", e[1], "error " + e[0] + (e[2] ? " · retriable" : "") + (e[3] ? " · " + e[3] : ""), "errors.html#error-" + e[1]);
      });
    }
    if (tm && tm.api && !tm.rest.length) {
      var ta = tm.api, section = tm.dir ? "#" + (tm.dir === "req" ? "request" : "response") : "";
      var dirName = tm.dir ? (tm.dir === "req" ? " request" : " response") : "";
      if (tm.v === null) add(960, "api", ta[1], "API key " + ta[0] + " · versions " + ta[3] + "–" + ta[4] + " · " + ta[6], "api/" + ta[2] + "/index.html");
      else if (tm.v >= ta[3] && tm.v <= ta[4]) add(1000, "version", ta[1] + " v" + tm.v + dirName, "API key " + ta[0] + " · " + (tm.dir ? dirName.slice(1) : "request and response") + ", byte by byte", "api/" + ta[2] + "/v" + tm.v + ".html" + section);
      else add(990, "api", ta[1], "has versions " + ta[3] + "–" + ta[4] + ", not v" + tm.v, "api/" + ta[2] + "/index.html");
    }
    idx.apis.forEach(function (a) {
      var names = [a[1]].concat(a[5]), best = 0;
      names.forEach(function (n) {
        var s = squash(n);
        var sc = s === qs ? 950 : s.indexOf(qs) === 0 ? 700 : qs.length >= 2 && s.indexOf(qs) > 0 ? 500 : 0;
        if (sc > best) best = sc;
      });
      if (num !== null && a[0] === num) best = 900;
      if (best) add(best, "api", a[1], "API key " + a[0] + " · versions " + a[3] + "–" + a[4] + " · " + a[6] + (a[5].length ? " · was " + a[5].join(", ") : ""), "api/" + a[2] + "/index.html");
    });
    var qe = q.replace(/[\s-]+/g, "_");
    idx.errors.forEach(function (e) {
      var best = 0, via = "";
      [e[1]].concat(e[4]).forEach(function (n, i) {
        var s = n.toLowerCase();
        var sc = s === qe ? 940 : s.indexOf(qe) === 0 ? 680 : qe.length >= 3 && s.indexOf(qe) > 0 ? 560 : 0;
        if (i > 0) sc -= 5;
        if (sc > best) { best = sc; via = i > 0 ? n : ""; }
      });
      if (num !== null && e[0] === num) best = Math.max(best, 850);
      if (!best && q.length >= 4 && e[3].toLowerCase().indexOf(q) >= 0) best = 150;
      if (best) add(best, "error", e[1] + (via ? " (was " + via + ")" : ""), "error " + e[0] + (e[2] ? " · retriable" : "") + (e[3] ? " · " + e[3] : ""), "errors.html#error-" + e[1]);
    });
    idx.enums.forEach(function (e) {
      var v = e[2].toLowerCase(), n = e[0].toLowerCase();
      var sc = v === qe ? 620 : n === qs ? 450 : qe.length >= 3 && v.indexOf(qe) >= 0 ? 400 : 0;
      if (sc) add(sc, "enum", e[0] + " " + e[1] + " = " + e[2], "enumeration value", "errors.html#enum-" + e[0]);
    });
    var apiByKey = {};
    idx.apis.forEach(function (a) { apiByKey[a[0]] = a; });
    // Words found in what fields mean, unless the query named a version.
    var words = (mv || (tm && (tm.api || tm.key !== null || tm.code !== null) && !tm.rest.length)) && out.length ? [] : q.split(" ").filter(function (w) { return w.length >= 3; });
    // The words left when several were given, each to be found in the
    // field's name or path (an API, version and direction named narrow
    // the fields to theirs).
    var rest = tm && tm.key === null && tm.code === null ? tm.rest.map(squash) : [];
    var restAll = rest.join("");
    idx.fields.forEach(function (f) {
      var a = apiByKey[f[2]];
      if (!a) return;
      var n = squash(f[0]), k = squash(f[1]);
      var sc = n === qs || k === qs ? 620 : n.indexOf(qs) === 0 || k.indexOf(qs) === 0 ? 460 : qs.length >= 3 && (n.indexOf(qs) > 0 || k.indexOf(qs) > 0) ? 320 : 0;
      var hi = Math.min(f[6], a[4]), at = hi;
      if (rest.length && (!tm.api || tm.api === a) && (!tm.dir || tm.dir === f[3]) && (tm.v === null || (tm.v >= f[5] && tm.v <= hi))) {
        var p = squash(f[4]);
        if (rest.every(function (w) { return n.indexOf(w) >= 0 || k.indexOf(w) >= 0 || p.indexOf(w) >= 0; })) {
          var own = n === restAll || k === restAll ? 640 : n.indexOf(restAll) === 0 || k.indexOf(restAll) === 0 ? 480 : 340;
          sc = Math.max(sc, tm.api ? own : own - 40);
          if (tm.v !== null) at = tm.v;
        }
      }
      var meaning = f[7] >= 0 ? idx.meanings[f[7]] : "";
      if (!sc && words.length && meaning) {
        var m = meaning.toLowerCase();
        if (words.every(function (w) { return m.indexOf(w) >= 0; })) sc = 200;
      }
      if (!sc) return;
      var dir = f[3] === "req" ? "request" : "response";
      add(sc, "field", a[1] + " " + dir + " " + f[4], range(f[5], hi) + (meaning ? " · " + meaning : ""),
        "api/" + a[2] + "/v" + at + ".html#" + f[3] + "-f-" + f[4]);
    });
    idx.pages.forEach(function (p) {
      var t = (p[0] + " " + p[2]).toLowerCase();
      if (q.length >= 3 && t.indexOf(q) >= 0) add(350, "page", p[0], p[3] || "reference page", p[1]);
    });
    out.sort(function (x, y) {
      return y.score - x.score || kindOrder[x.kind] - kindOrder[y.kind] || (x.label < y.label ? -1 : x.label > y.label ? 1 : 0);
    });
    // One line a place: the best reason it was found.
    var seen = {};
    return out.filter(function (r) {
      var id = r.kind + " " + r.href;
      if (seen[id]) return false;
      seen[id] = true;
      return true;
    });
  };

  // nearest suggests names within a few edits of what was typed.
  var distance = function (a, b) {
    if (Math.abs(a.length - b.length) > 3) return 99;
    var prev = [], cur = [], i, j;
    for (j = 0; j <= b.length; j++) prev[j] = j;
    for (i = 1; i <= a.length; i++) {
      cur = [i];
      for (j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
    return prev[b.length];
  };
  var nearest = function (idx, text) {
    var q = squash(text), seen = {}, out = [];
    var consider = function (name, href) {
      if (seen[name]) return;
      var d = distance(q, squash(name));
      if (d <= Math.max(1, Math.min(3, Math.floor(q.length / 3)))) { seen[name] = true; out.push({ d: d, name: name, href: href }); }
    };
    idx.apis.forEach(function (a) { consider(a[1], "api/" + a[2] + "/index.html"); });
    idx.errors.forEach(function (e) { consider(e[1], "errors.html#error-" + e[1]); });
    idx.fields.forEach(function (f) { consider(f[0], "search.html?q=" + encodeURIComponent(f[0])); });
    out.sort(function (x, y) { return x.d - y.d; });
    return out.slice(0, 6);
  };

  var el = function (tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  var link = function (href, text) {
    var a = el("a", "", text);
    a.href = /^[a-z]+:/.test(href) ? href : root + href;
    return a;
  };

  // fallback is what a search that finds nothing shows: the names nearest
  // to what was typed, what can be searched, and where to browse.
  var fallback = function (idx, text, box) {
    box.appendChild(el("p", "qnone", "Nothing in the reference matches “" + text.trim() + "”."));
    var near = nearest(idx, text);
    if (near.length) {
      var p = el("p", "qnear", "Did you mean ");
      near.forEach(function (n, i) {
        if (i) p.appendChild(document.createTextNode(i === near.length - 1 ? " or " : ", "));
        p.appendChild(link(n.href, n.name));
      });
      p.appendChild(document.createTextNode("?"));
      box.appendChild(p);
    }
    var tips = el("ul", "qtips");
    [["an API name or key", "fetch, 1"], ["an API and a version", "produce v9"], ["an error name or code", "NOT_LEADER, 6"],
      ["a field, or what a field means", "isolationLevel, high watermark"]].forEach(function (t) {
      var li = el("li", "", t[0] + ": ");
      li.appendChild(el("code", "", t[1]));
      tips.appendChild(li);
    });
    box.appendChild(tips);
    var more = el("p", "qbrowse", "Or browse ");
    more.appendChild(link("index.html", "every API"));
    more.appendChild(document.createTextNode(", "));
    more.appendChild(link("errors.html", "the error codes"));
    more.appendChild(document.createTextNode(", or paste bytes into the "));
    more.appendChild(link("playground/", "playground"));
    more.appendChild(document.createTextNode("."));
    box.appendChild(more);
  };

  var resultItem = function (r, id) {
    var a = link(r.href, "");
    a.className = "qhit qhit-" + r.kind;
    if (id) { a.id = id; a.setAttribute("role", "option"); }
    a.appendChild(el("span", "qkind", r.kind));
    a.appendChild(el("span", "qlabel", r.label));
    a.appendChild(el("span", "qdetail", r.detail));
    return a;
  };

  // The box in every page's header: results drop down as one types.
  var box = document.getElementById("q");
  var drop = document.getElementById("q-results");
  if (box && drop) {
    var active = -1, shown = [];
    var setActive = function (i) {
      shown.forEach(function (a, j) { a.classList.toggle("qactive", j === i); a.setAttribute("aria-selected", j === i ? "true" : "false"); });
      active = i;
      if (i >= 0 && shown[i]) { box.setAttribute("aria-activedescendant", shown[i].id); shown[i].scrollIntoView({ block: "nearest" }); }
      else box.removeAttribute("aria-activedescendant");
    };
    // The number of results is said (a status) as they change.
    var qCount = document.getElementById("q-count");
    var say = function (text) { if (qCount && qCount.textContent !== text) qCount.textContent = text; };
    var close = function () { drop.hidden = true; box.setAttribute("aria-expanded", "false"); setActive(-1); say(""); };
    var run = function () {
      var text = box.value;
      if (!text.trim()) { close(); return; }
      loadIndex().then(function (idx) {
        if (box.value !== text) return;
        var hits = search(idx, text);
        drop.textContent = "";
        shown = [];
        hits.slice(0, 8).forEach(function (r, i) {
          var a = resultItem(r, "q-hit-" + i);
          shown.push(a);
          drop.appendChild(a);
        });
        if (!hits.length) fallback(idx, text, drop);
        var all = link("search.html?q=" + encodeURIComponent(text.trim()), hits.length > 8 ? "All " + hits.length + " results →" : "Search page →");
        all.className = "qall";
        drop.appendChild(all);
        drop.hidden = false;
        box.setAttribute("aria-expanded", "true");
        setActive(hits.length ? 0 : -1);
        say(hits.length ? hits.length + " result" + (hits.length === 1 ? "" : "s") + (hits.length > 8 ? ", the first 8 listed" : "") : "No results");
      }, function () { close(); });
    };
    box.addEventListener("input", run);
    box.addEventListener("focus", function () { loadIndex(); if (box.value.trim()) run(); });
    box.addEventListener("keydown", function (ev) {
      if (drop.hidden) return;
      if (ev.key === "ArrowDown") { ev.preventDefault(); setActive(Math.min(shown.length - 1, active + 1)); }
      else if (ev.key === "ArrowUp") { ev.preventDefault(); setActive(Math.max(0, active - 1)); }
      else if (ev.key === "Escape") { ev.preventDefault(); close(); } // the text stays; a second Escape clears it
      else if (ev.key === "Enter" && active >= 0 && shown[active]) { ev.preventDefault(); location.href = shown[active].href; }
    });
    document.addEventListener("click", function (ev) { if (!searchForm.contains(ev.target)) close(); });
    // "/" focuses the search, as on most documentation sites, unless a
    // field (or the page's own keys: a grid or tree) has the keys.
    document.addEventListener("keydown", function (ev) {
      if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
      var t = ev.target;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.closest && t.closest("[role=grid], [role=tree]"))) return;
      ev.preventDefault();
      box.focus();
      box.select();
    });
  }

  // search.html: every result for ?q=, grouped, or the fallback.
  var pageBox = document.getElementById("search-page");
  if (pageBox) {
    var text = new URLSearchParams(location.search).get("q") || "";
    if (box) box.value = text;
    if (text.trim()) {
      loadIndex().then(function (idx) {
        var hits = search(idx, text);
        pageBox.textContent = "";
        if (!hits.length) { fallback(idx, text, pageBox); return; }
        pageBox.appendChild(el("p", "qcount", hits.length + " result" + (hits.length === 1 ? "" : "s") + " for “" + text.trim() + "”" + (hits.length > 300 ? "; the first 300:" : "")));
        var list = el("div", "qlist");
        hits.slice(0, 300).forEach(function (r) { list.appendChild(resultItem(r)); });
        pageBox.appendChild(list);
      }, function (err) { pageBox.textContent = "The search index could not be loaded (" + err.message + ")."; });
    }
  }

  // The index's filter: rows of APIs whose names, keys or fields match,
  // and the fields that matched, with links to where they live.
  var filter = document.getElementById("filter");
  if (filter) {
    var rows = Array.prototype.slice.call(document.querySelectorAll("tr.api"));
    var count = document.getElementById("filter-count");
    var hitsBox = document.getElementById("field-hits");
    var names = {};
    rows.forEach(function (r) { names[r.getAttribute("data-key")] = r.querySelector("td:nth-child(2) a"); });
    var apply = function (data) {
      var q = filter.value.trim().toLowerCase();
      var shown = 0;
      // A number is an API key, matched exactly; words match API names
      // and the names of fields (JSON or Kafka's own), anywhere in them.
      var byKey = /^\d+$/.test(q);
      var fieldHits = {};
      var hits = [];
      if (q.length >= 2 && !byKey) {
        data.forEach(function (e) {
          if (e[0].toLowerCase().indexOf(q) >= 0 || e[1].toLowerCase().indexOf(q) >= 0) {
            fieldHits[e[2]] = true;
            hits.push(e);
          }
        });
      }
      rows.forEach(function (r) {
        var words = r.getAttribute("data-search").toLowerCase();
        var key = r.getAttribute("data-key");
        var hit = q === "" || (byKey ? key === q : words.indexOf(q) >= 0 || fieldHits[key]);
        r.classList.toggle("hidden", !hit);
        if (hit) shown++;
      });
      document.querySelectorAll("section.cat").forEach(function (s) {
        s.classList.toggle("hidden", s.querySelectorAll("tr.api:not(.hidden)").length === 0);
      });
      if (count) count.textContent = q === "" ? "" : shown + " of " + rows.length + " APIs";
      if (!hitsBox) return;
      hitsBox.textContent = "";
      if (!hits.length) { hitsBox.hidden = true; return; }
      var h = document.createElement("h2");
      h.textContent = hits.length + " field" + (hits.length === 1 ? "" : "s") + " named like “" + filter.value.trim() + "”";
      hitsBox.appendChild(h);
      var ul = document.createElement("ul");
      hits.slice(0, 60).forEach(function (e) {
        var a = names[String(e[2])];
        if (!a) return;
        var li = document.createElement("li");
        var link = document.createElement("a");
        var page = a.getAttribute("href").replace(/index\.html$/, "v" + e[5] + ".html");
        link.href = page + "#" + e[3] + "-f-" + e[4];
        link.textContent = a.textContent + " " + (e[3] === "req" ? "request" : "response") + " " + e[4];
        li.appendChild(link);
        li.appendChild(document.createTextNode(" (v" + e[5] + (e[6] !== e[5] ? "–" + (e[6] >= 32767 ? "" : e[6]) : "") + (e[6] >= 32767 ? "+" : "") + ")"));
        ul.appendChild(li);
      });
      hitsBox.appendChild(ul);
      if (hits.length > 60) hitsBox.appendChild(document.createTextNode("… and " + (hits.length - 60) + " more: type more of the name."));
      hitsBox.hidden = false;
    };
    var onInput = function () {
      var q = filter.value;
      apply([]); // the API rows at once; the fields when the index is here
      loadIndex().then(function (idx) { if (filter.value === q) apply(idx.fields); });
    };
    filter.addEventListener("input", onInput);
    if (filter.value) onInput();

    // The release column: each row carries every release's highest version.
    var rel = document.getElementById("release");
    if (rel) {
      rel.addEventListener("change", function () {
        var want = rel.value;
        rows.forEach(function (r) {
          var v = "";
          r.getAttribute("data-rel").split(" ").forEach(function (kv) {
            // "4.2:2", or "4.2:2:c" where only the release's KRaft
            // controller speaks the API (as the page's own cells say).
            var p = kv.split(":");
            if (p[0] === want) v = "v" + p[1] + (p[2] === "c" ? " (controller)" : "");
          });
          var td = r.querySelector("td.rel");
          td.textContent = v;
          td.setAttribute("data-label", "Kafka " + want);
        });
        document.querySelectorAll("th.relhead").forEach(function (th) { th.textContent = "Kafka " + want; });
      });
    }
  }

  document.querySelectorAll("select.version-switch").forEach(function (sel) {
    sel.addEventListener("change", function () {
      var hash = location.hash;
      location.href = sel.value + (hash && hash.indexOf("=") < 0 ? hash : "");
    });
  });
  // Back to a page whose switcher was used: the browser may show the
  // version picked there (a form control's value restored on reload, or
  // the page kept whole in the back-forward cache), so the select would
  // name another version than the page's, and picking that one again
  // would be no change. The page's own version is the option the page
  // marks selected.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("select.version-switch").forEach(function (sel) {
      for (var i = 0; i < sel.options.length; i++) {
        if (sel.options[i].defaultSelected) sel.selectedIndex = i;
      }
    });
  });

  // Hover lights a node's cells and tree line; a click, a tap or the
  // arrow keys select it, in the grid and the tree alike.
  document.querySelectorAll("section.dir, section#batch").forEach(function (sec) {
    var lit = [], picked = [];
    var note = sec.querySelector(".selnote");
    var mark = function (list, cls, node, on) {
      list.forEach(function (e) {
        e.classList.remove(cls);
        if (cls === "kw-sel" && e.classList.contains("kw-cell")) e.removeAttribute("aria-selected");
      });
      list.length = 0;
      if (node === null) return;
      sec.querySelectorAll('[data-node="' + node + '"]').forEach(function (e) {
        e.classList.add(cls);
        if (cls === "kw-sel" && e.classList.contains("kw-cell")) e.setAttribute("aria-selected", "true");
        list.push(e);
      });
    };
    var inView = function (e, box) {
      if (!box) return;
      var r = e.getBoundingClientRect(), b = box.getBoundingClientRect();
      if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - b.height / 3;
    };
    var select = function (t) {
      var node = t.getAttribute("data-node");
      mark(picked, "kw-sel", node);
      var tn = sec.querySelector('.tn[data-node="' + node + '"]');
      var cell = sec.querySelector('.kw-cell[data-node="' + node + '"]');
      if (tn) {
        for (var d = tn.parentElement; d && d !== sec; d = d.parentElement) if (d.tagName === "DETAILS") d.open = true;
        inView(tn, sec.querySelector(".treebox"));
      }
      if (note && tn) {
        note.textContent = "Selected: " + tn.textContent.replace(/\s+/g, " ").trim() +
          (cell && t.classList.contains("kw-cell") ? " · cell " + t.querySelector(".kw-label").textContent + " [" + t.getAttribute("data-start") + ", " + t.getAttribute("data-end") + ")" : "");
      }
      sec.cur = t.classList.contains("kw-cell") ? t : cell;
      // The grid holding the cell names it as its active descendant, and
      // the tree's item for the node is selected and its one tab stop.
      sec.querySelectorAll(".kw-grid").forEach(function (g, i) { activeCell(g, g.contains(sec.cur) ? sec.cur : null, sec.id + "-cell" + i); });
      if (tn) current(tn.closest("li"));
    };
    var activeCell = function (g, c, id) {
      var old = document.getElementById(id);
      if (old && old !== c) old.removeAttribute("id");
      if (c) { c.id = id; g.setAttribute("aria-activedescendant", id); } else g.removeAttribute("aria-activedescendant");
    };
    // The tree is one composite (ARIA's tree pattern): its items are the
    // list items, named by their node's line, the selected one the only
    // tab stop (roving tabindex); focus and selection move together.
    var treebox = sec.querySelector(".treebox"), tree = treebox && treebox.querySelector("ul.tree");
    var items = [], cur = null;
    var current = function (li) {
      if (!li || li === cur || !tree || !tree.contains(li)) return;
      if (cur) { cur.tabIndex = -1; cur.setAttribute("aria-selected", "false"); }
      cur = li;
      li.tabIndex = 0;
      li.setAttribute("aria-selected", "true");
    };
    if (tree) {
      tree.setAttribute("role", "tree");
      tree.setAttribute("aria-label", treebox.getAttribute("aria-label"));
      treebox.removeAttribute("tabindex"); // the tree's item is the stop, and scrolls it
      tree.querySelectorAll("ul").forEach(function (u) { u.setAttribute("role", "group"); });
      tree.querySelectorAll("summary").forEach(function (s) { s.tabIndex = -1; });
      items = Array.prototype.slice.call(tree.querySelectorAll("li"));
      items.forEach(function (li, i) {
        var tn = li.querySelector(".tn"), d = li.querySelector(":scope > details");
        li.setAttribute("role", "treeitem");
        li.setAttribute("aria-selected", "false");
        li.tabIndex = i === 0 ? 0 : -1;
        tn.id = sec.id + "-tn-" + tn.getAttribute("data-node");
        li.setAttribute("aria-labelledby", tn.id);
        if (d) li.setAttribute("aria-expanded", String(d.open));
      });
      cur = items[0];
      tree.addEventListener("toggle", function (ev) {
        var li = ev.target.parentElement;
        if (li && li.getAttribute("role") === "treeitem") li.setAttribute("aria-expanded", String(ev.target.open));
      }, true);
    }
    sec.addEventListener("mouseover", function (ev) {
      var t = ev.target.closest("[data-node]");
      if (t) mark(lit, "kw-hl", t.getAttribute("data-node"));
    });
    sec.addEventListener("mouseleave", function () { mark(lit, "kw-hl", null); });
    sec.addEventListener("click", function (ev) {
      var t = ev.target.closest(".kw-cell[data-node], .tn[data-node]");
      if (!t) return;
      if (t.classList.contains("tn") && ev.target.closest("summary")) ev.preventDefault(); // select, do not fold
      select(t);
      if (t.classList.contains("tn") && cur) cur.focus(); // the keys go on from the node clicked
    });
    sec.querySelectorAll(".kw-grid").forEach(function (grid) {
      grid.addEventListener("keydown", function (ev) {
        var cells = Array.prototype.slice.call(grid.querySelectorAll(".kw-cell[data-start]"));
        if (!cells.length) return;
        var cur = sec.cur && grid.contains(sec.cur) ? sec.cur : null;
        var at = cur ? +cur.getAttribute("data-start") : -1, end = cur ? +cur.getAttribute("data-end") : 0;
        var next = null;
        var covering = function (off) {
          for (var i = 0; i < cells.length; i++) {
            var s = +cells[i].getAttribute("data-start"), e = +cells[i].getAttribute("data-end");
            if (off >= s && off < e) return cells[i];
          }
          return null;
        };
        switch (ev.key) {
          case "ArrowRight": next = cur ? covering(end) : cells[0]; break;
          case "ArrowLeft": next = cur ? covering(at - 1) : cells[0]; break;
          case "ArrowDown": next = cur ? covering(Math.max(end, at + 4)) : cells[0]; break;
          case "ArrowUp": next = cur ? covering(at - 4) : cells[0]; break;
          case "Home": next = cells[0]; break;
          case "End": next = cells[cells.length - 1]; break;
          case "Escape": mark(picked, "kw-sel", null); sec.cur = null; activeCell(grid, null, grid.getAttribute("aria-activedescendant") || "-"); if (note) note.textContent = ""; ev.preventDefault(); return;
          default: return;
        }
        ev.preventDefault();
        if (next) { select(next); next.scrollIntoView({ block: "nearest" }); }
      });
    });
    // The tree's keys: up and down to the item shown before or after the
    // focused one, right to open it (or into it), left to close it (or up
    // to its parent), Home and End; Enter and Space open or close.
    // fold opens or closes an item at once (the details' toggle event,
    // which a click on its summary fires, comes a task later).
    var fold = function (li, d, open) { d.open = open; li.setAttribute("aria-expanded", String(open)); };
    if (tree) {
      tree.addEventListener("keydown", function (ev) {
        var li = ev.target.closest && ev.target.closest("li[role=treeitem]");
        if (!li || ev.altKey || ev.ctrlKey || ev.metaKey) return;
        var shown = items.filter(function (e) { return e.querySelector(".tn").offsetParent !== null; });
        var i = shown.indexOf(li), d = li.querySelector(":scope > details"), to = null;
        switch (ev.key) {
          case "ArrowDown": to = shown[i + 1]; break;
          case "ArrowUp": to = shown[i - 1]; break;
          case "Home": to = shown[0]; break;
          case "End": to = shown[shown.length - 1]; break;
          case "ArrowRight": if (d && !d.open) fold(li, d, true); else if (d) to = shown[i + 1]; break;
          case "ArrowLeft": if (d && d.open) fold(li, d, false); else to = li.parentElement.closest("li[role=treeitem]"); break;
          case "Enter": case " ": if (d) fold(li, d, !d.open); break;
          default: return;
        }
        ev.preventDefault();
        if (to) { select(to.querySelector(".tn")); to.focus(); }
      });
    }
  });
})();
