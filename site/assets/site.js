// kwire reference pages: the search over APIs and fields, the release
// column, the version switcher, and selection between the byte grid and
// the decoded tree (click, tap or keyboard). The pages read fine without it.
(function () {
  "use strict";

  var filter = document.getElementById("filter");
  if (filter) {
    var rows = Array.prototype.slice.call(document.querySelectorAll("tr.api"));
    var count = document.getElementById("filter-count");
    var hitsBox = document.getElementById("field-hits");
    var data = [];
    try { data = JSON.parse(document.getElementById("search-data").textContent); } catch (e) { data = []; }
    var names = {};
    rows.forEach(function (r) { names[r.getAttribute("data-key")] = r.querySelector("td:nth-child(2) a"); });
    var apply = function () {
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
    filter.addEventListener("input", apply);
    if (filter.value) apply();

    // The release column: each row carries every release's highest version.
    var rel = document.getElementById("release");
    if (rel) {
      rel.addEventListener("change", function () {
        var want = rel.value;
        rows.forEach(function (r) {
          var v = "";
          r.getAttribute("data-rel").split(" ").forEach(function (kv) {
            var p = kv.split(":");
            if (p[0] === want) v = "v" + p[1];
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
    };
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
          case "Escape": mark(picked, "kw-sel", null); sec.cur = null; if (note) note.textContent = ""; ev.preventDefault(); return;
          default: return;
        }
        ev.preventDefault();
        if (next) { select(next); next.scrollIntoView({ block: "nearest" }); }
      });
    });
    var treebox = sec.querySelector(".treebox");
    if (treebox) {
      treebox.addEventListener("keydown", function (ev) {
        if (ev.key !== "ArrowDown" && ev.key !== "ArrowUp") return;
        var tns = Array.prototype.slice.call(treebox.querySelectorAll(".tn")).filter(function (e) { return e.offsetParent !== null; });
        var i = picked.length ? tns.indexOf(treebox.querySelector(".tn.kw-sel")) : -1;
        i = ev.key === "ArrowDown" ? Math.min(tns.length - 1, i + 1) : Math.max(0, i - 1);
        ev.preventDefault();
        if (tns[i]) select(tns[i]);
      });
    }
  });
})();
