// kwire reference pages: the API filter, the version switcher, and
// highlighting between the byte grid and the decoded tree. The pages read
// fine without it.
(function () {
  "use strict";

  var filter = document.getElementById("filter");
  if (filter) {
    var rows = Array.prototype.slice.call(document.querySelectorAll("tr.api"));
    var count = document.getElementById("filter-count");
    var apply = function () {
      var q = filter.value.trim().toLowerCase();
      var shown = 0;
      rows.forEach(function (r) {
        var words = r.getAttribute("data-search").toLowerCase();
        var key = words.split(" ")[0];
        var hit = q === "" || key === q || words.indexOf(q) >= 0;
        r.classList.toggle("hidden", !hit);
        if (hit) shown++;
      });
      document.querySelectorAll("section.cat").forEach(function (s) {
        s.classList.toggle("hidden", s.querySelectorAll("tr.api:not(.hidden)").length === 0);
      });
      if (count) count.textContent = q === "" ? "" : shown + " of " + rows.length;
    };
    filter.addEventListener("input", apply);
    if (filter.value) apply();
  }

  document.querySelectorAll("select.version-switch").forEach(function (sel) {
    sel.addEventListener("change", function () {
      var hash = location.hash;
      location.href = sel.value + (hash && hash.indexOf("=") < 0 ? hash : "");
    });
  });

  // Hovering a grid cell or a tree node lights up the same bytes in both.
  document.querySelectorAll("section.dir, section#batch").forEach(function (sec) {
    var lit = [];
    var clear = function () {
      lit.forEach(function (e) { e.classList.remove("kw-hl"); });
      lit = [];
    };
    var light = function (node) {
      clear();
      sec.querySelectorAll('[data-node="' + node + '"]').forEach(function (e) {
        e.classList.add("kw-hl");
        lit.push(e);
      });
    };
    sec.addEventListener("mouseover", function (ev) {
      var t = ev.target.closest("[data-node]");
      if (t) light(t.getAttribute("data-node"));
    });
    sec.addEventListener("mouseleave", clear);
  });
})();
