// loclab viewer (docs/guide/viewer.md). A classic script with no dependencies: it runs from
// disk (file://), where a page may run sibling scripts but not fetch files or import modules.
// Data comes as scripts calling loclabData(key, value): data/summary.js first, then
// data/t/<n>.js for each trajectory opened. Text from trajectories is untrusted: it only ever
// enters the page as text nodes.
(function () {
  "use strict";

  var ROW_HEIGHT = 24;
  var OVERSCAN = 12;
  var FOLD_CHARS = 800;
  var CACHE_SIZE = 40;
  // Only `loclab view` marks its summary live; the same site from disk or any static server is not.
  var live = false;

  var state = {
    summary: null,
    filterText: "",
    filterError: null,
    order: null, // Int32Array of row indices, filtered and sorted
    sort: { column: null, descending: false },
    scrollTop: 0,
  };
  window.loclab = state; // for the browser tests and the console

  // ---------- data loading ----------
  var waiting = {};
  var cache = new Map();
  window.loclabData = function (key, value) {
    var callbacks = waiting[key];
    delete waiting[key];
    if (callbacks)
      callbacks.forEach(function (cb) {
        cb.resolve(value);
      });
  };
  function load(key, revision) {
    return new Promise(function (resolve, reject) {
      var first = !waiting[key];
      (waiting[key] = waiting[key] || []).push({ resolve: resolve, reject: reject });
      if (!first) return;
      var script = document.createElement("script");
      script.src = "data/" + key + ".js" + (live && revision !== undefined ? "?r=" + revision : "");
      script.onload = function () {
        script.remove();
      };
      script.onerror = function () {
        script.remove();
        var callbacks = waiting[key];
        delete waiting[key];
        (callbacks || []).forEach(function (cb) {
          cb.reject(new Error("cannot load data/" + key + ".js"));
        });
      };
      document.head.appendChild(script);
    });
  }
  function trajectory(id) {
    var key = "t/" + id;
    if (cache.has(key)) {
      var hit = cache.get(key);
      cache.delete(key);
      cache.set(key, hit);
      return Promise.resolve(hit);
    }
    return load(key, state.summary && state.summary.revision).then(function (view) {
      cache.set(key, view);
      if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value);
      return view;
    });
  }

  // ---------- DOM helpers ----------
  function h(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs)
      for (var name in attrs) {
        var value = attrs[name];
        if (value === null || value === undefined || value === false) continue;
        if (name === "class") node.className = value;
        else if (name === "text") node.textContent = value;
        else if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
        else node.setAttribute(name, value === true ? "" : value);
      }
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) {
      child.forEach(function (c) {
        append(node, c);
      });
      return;
    }
    node.appendChild(
      typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child,
    );
  }
  function fmt(value, digits) {
    if (value === null || value === undefined) return "–";
    if (typeof value === "number") {
      if (Number.isInteger(value)) return String(value);
      return value.toFixed(digits !== undefined ? digits : Math.abs(value) >= 100 ? 1 : 3);
    }
    return String(value);
  }
  function pct(value) {
    return value === null || value === undefined ? "–" : (100 * value).toFixed(2);
  }
  function main() {
    return document.getElementById("main");
  }
  function setMain() {
    var m = main();
    m.textContent = "";
    for (var i = 0; i < arguments.length; i++) append(m, arguments[i]);
  }
  function param(name) {
    var query = location.hash.split("?")[1] || "";
    var found = null;
    query.split("&").forEach(function (part) {
      var kv = part.split("=");
      if (decodeURIComponent(kv[0]) === name) found = decodeURIComponent((kv[1] || "").replace(/\+/g, " "));
    });
    return found;
  }
  function outcomeClass(column, value) {
    // No value is shown as a plain dash; only an outcome still open gets the open badge.
    if (value === null || value === undefined) return null;
    if (column === "acc1" || column === "resolved" || column === "patch") return value >= 1 ? "good" : "bad";
    if (column === "outcome") {
      if (String(value).indexOf("open") === 0 || value === "infra_error" || value === "failed") return "open";
      if (value === "finished" || value === "evaluated") return "good";
      if (value === "forced_final" || value === "budget_exhausted") return "near";
      return "bad";
    }
    return null;
  }
  function badge(column, value) {
    var cls = outcomeClass(column, value);
    var text =
      column === "acc1" || column === "resolved" || column === "patch"
        ? value === null || value === undefined
          ? "–"
          : String(value)
        : fmt(value);
    return cls ? h("span", { class: "badge " + cls, "data-outcome": cls }, text) : text;
  }

  // ---------- the table's order ----------
  function applyFilter() {
    var s = state.summary;
    var n = s.rows.t.length;
    var order;
    try {
      var keep = window.LoclabFilter.compile(state.filterText, s.rows);
      state.filterError = null;
      var out = new Int32Array(n);
      var count = 0;
      for (var i = 0; i < n; i++) if (keep(i)) out[count++] = i;
      order = out.slice(0, count);
    } catch (error) {
      // A wrong expression leaves the rows as they were (every row the first time); sorting still applies.
      state.filterError = error;
      order = state.order
        ? state.order.slice()
        : Int32Array.from({ length: n }, function (_, i) {
            return i;
          });
    }
    var column = state.sort.column;
    if (column && s.rows[column]) {
      var values = s.rows[column];
      var sign = state.sort.descending ? -1 : 1;
      order.sort(function (a, b) {
        var x = values[a],
          y = values[b];
        if (x === y) return a - b;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * sign;
      });
    }
    state.order = order;
  }

  // ---------- views ----------
  function overview() {
    var s = state.summary;
    var metricNames = [];
    s.cells.forEach(function (cell) {
      Object.keys(cell.metrics).forEach(function (m) {
        if (metricNames.indexOf(m) < 0) metricNames.push(m);
      });
    });
    var hasArm = s.cells.some(function (cell) {
      return cell.arm;
    });
    var cellTable = h(
      "table",
      { class: "grid", id: "cells" },
      h(
        "tr",
        null,
        h("th", { text: "cell" }),
        h("th", { text: "seed" }),
        h("th", { text: "control" }),
        hasArm ? h("th", { text: "arm" }) : null,
        h("th", { text: "model" }),
        h("th", { class: "num", text: "n" }),
        metricNames.map(function (m) {
          return h("th", { class: "num", text: m });
        }),
        h("th", { text: "outcomes" }),
      ),
      s.cells.map(function (cell) {
        return h(
          "tr",
          null,
          h(
            "td",
            { class: "nowrap" },
            h("a", { href: "#/instances?f=" + encodeURIComponent('cell == "' + cell.cell + '"') }, cell.cell),
          ),
          h("td", { text: fmt(cell.seed) }),
          h("td", { text: cell.control }),
          hasArm ? h("td", { text: cell.arm || "" }) : null,
          h("td", { text: cell.model || "" }),
          h("td", { class: "num", text: cell.n }),
          metricNames.map(function (m) {
            return h("td", { class: "num", text: fmt(cell.metrics[m]) });
          }),
          h("td", {
            text: Object.keys(cell.outcomes)
              .map(function (o) {
                return o + " " + cell.outcomes[o];
              })
              .join(", "),
          }),
        );
      }),
    );
    // Mean ± SD over seeds: one row per control (and arm), one column per metric.
    var groups = [];
    s.acrossSeeds.forEach(function (row) {
      if (groups.indexOf(row.group) < 0) groups.push(row.group);
    });
    var seeds = h(
      "table",
      { class: "grid", id: "across-seeds" },
      h(
        "tr",
        null,
        h("th", { text: "control" + (hasArm ? " / arm" : "") }),
        h("th", { class: "num", text: "seeds" }),
        metricNames.map(function (m) {
          return h("th", { class: "num", text: m });
        }),
      ),
      groups.map(function (group) {
        var rows = s.acrossSeeds.filter(function (row) {
          return row.group === group;
        });
        return h(
          "tr",
          { "data-group": group },
          h("td", { class: "nowrap", text: group }),
          h("td", { class: "num", text: rows.length ? rows[0].seeds : "" }),
          metricNames.map(function (m) {
            var row = rows.filter(function (r) {
              return r.metric === m;
            })[0];
            return h("td", {
              class: "num nowrap",
              "data-metric": m,
              text: row ? fmt(row.mean) + (row.sd === null ? "" : " ± " + fmt(row.sd)) : "–",
            });
          }),
        );
      }),
    );
    var comparisons =
      s.comparisons.length === 0
        ? h("p", { class: "muted", text: "No control against plain in this run." })
        : h(
            "table",
            { class: "grid", id: "comparisons" },
            h(
              "tr",
              null,
              [
                "control",
                "seed",
                "metric",
                "pairs",
                "plain",
                "other",
                "difference",
                "b",
                "c",
                "p (exact McNemar)",
                "interval",
              ].map(function (t) {
                return h("th", { text: t });
              }),
            ),
            s.comparisons.map(function (c) {
              return h(
                "tr",
                null,
                h("td", { text: c.control }),
                h("td", { text: String(c.seed) }),
                h("td", { text: c.metric }),
                h("td", { class: "num", text: c.pairs }),
                h("td", { class: "num", text: fmt(c.plain) }),
                h("td", { class: "num", text: fmt(c.other) }),
                h("td", { class: "num", text: fmt(c.difference) }),
                h("td", { class: "num", text: c.b }),
                h("td", { class: "num", text: c.c }),
                h("td", { class: "num", text: fmt(c.p, 4) }),
                h("td", {
                  class: "num",
                  text: "[" + fmt(c.lower) + ", " + fmt(c.upper) + "] (" + Math.round(100 * c.confidence) + " %)",
                }),
              );
            }),
          );
    var charts = s.charts.map(function (chart) {
      var box = h("div", { class: "chart" }, h("h3", { text: chart.title }));
      var figure = h("div");
      figure.innerHTML = chart.svg; // rendered by loclab from its own data, never from a trajectory
      box.appendChild(figure);
      box.appendChild(
        h(
          "details",
          null,
          h("summary", { text: "Vega-Lite spec" }),
          h("pre", { text: JSON.stringify(chart.spec, null, 1) }),
        ),
      );
      return box;
    });
    setMain(
      h("h2", { text: s.title }),
      s.problems.length
        ? h(
            "div",
            { class: "problems" },
            h("strong", { text: s.problems.length + " problem(s) reading the folder" }),
            h(
              "ul",
              null,
              s.problems.slice(0, 50).map(function (p) {
                return h("li", { text: p });
              }),
            ),
          )
        : null,
      h("h2", { text: "Across seeds (mean ± sample SD)" }),
      h("div", { class: "scroll" }, seeds),
      h("h2", { text: "Cells" }),
      h("div", { class: "scroll" }, cellTable),
      h("h2", { text: "Paired comparisons" }),
      comparisons,
      h("p", null, h("a", { href: "#/pairs" }, "Any two cells: discordant tasks →")),
      h("h2", { text: "Charts" }),
      charts,
      h("h2", { text: "Manifest" }),
      s.manifest
        ? h(
            "details",
            { id: "manifest" },
            h("summary", { text: "spec, versions, endpoints" }),
            h("pre", { text: JSON.stringify(s.manifest, null, 2) }),
          )
        : h("p", { class: "muted", text: "No manifest (an imported folder)." }),
    );
  }

  function instances() {
    var s = state.summary;
    var f = param("f");
    if (f !== null && f !== state.filterText) state.filterText = f;
    applyFilter();
    // Columns with no value in any row (a localization run's arm, resolved, judge) are not
    // shown; filter expressions may still name them.
    var columns = s.columns.filter(function (c) {
      var values = s.rows[c.name];
      for (var i = 0; i < values.length; i++) if (values[i] !== null && values[i] !== undefined) return true;
      return values.length === 0;
    });
    var WIDE = { instance: "minmax(140px, 2.6fr)", cell: "minmax(120px, 2fr)", repo: "minmax(90px, 1.4fr)" };
    var template = columns
      .map(function (c) {
        return WIDE[c.name] || (c.type === "string" ? "minmax(80px, 1.2fr)" : "minmax(56px, 0.6fr)");
      })
      .join(" ");
    var input = h("input", {
      type: "text",
      id: "filter",
      value: state.filterText,
      spellcheck: "false",
      placeholder: 'e.g. control == "masked" and acc1 == 0 and turns < 5',
      "aria-label": "filter expression",
    });
    var status = h("span", { id: "count" });
    var errorBox = h("span", { class: "filter-error", id: "filter-error" });
    var head = h(
      "div",
      { class: "vt-head", style: "grid-template-columns:" + template },
      columns.map(function (c) {
        var arrow = state.sort.column === c.name ? (state.sort.descending ? " ▼" : " ▲") : "";
        return h(
          "span",
          {
            title: c.description,
            "data-column": c.name,
            onclick: function () {
              if (state.sort.column === c.name) state.sort.descending = !state.sort.descending;
              else {
                state.sort.column = c.name;
                state.sort.descending = false;
              }
              instances();
            },
          },
          c.name + arrow,
        );
      }),
    );
    var body = h("div", { class: "vt-body", id: "rows" });
    var spacer = h("div");
    var windowBox = h("div", { class: "vt-window" });
    body.appendChild(spacer);
    body.appendChild(windowBox);
    function renderRows() {
      var order = state.order;
      spacer.style.height = order.length * ROW_HEIGHT + "px";
      var first = Math.max(0, Math.floor(body.scrollTop / ROW_HEIGHT) - OVERSCAN);
      var last = Math.min(order.length, Math.ceil((body.scrollTop + body.clientHeight) / ROW_HEIGHT) + OVERSCAN);
      windowBox.style.transform = "translateY(" + first * ROW_HEIGHT + "px)";
      windowBox.textContent = "";
      for (var k = first; k < last; k++) {
        var row = order[k];
        var t = s.rows.t[row];
        windowBox.appendChild(
          h(
            "div",
            {
              class: "vt-row",
              style: "grid-template-columns:" + template,
              "data-row": row,
              "data-t": t,
              onclick: (function (t) {
                return function () {
                  if (t >= 0) location.hash = "#/t/" + t;
                };
              })(t),
            },
            columns.map(function (c) {
              var value = s.rows[c.name][row];
              return h(
                "span",
                { class: c.type === "number" ? "num" : null, title: value === null ? "" : String(value) },
                badge(c.name, value),
              );
            }),
          ),
        );
      }
    }
    function update() {
      status.textContent = state.order.length + " of " + s.rows.t.length + " rows";
      errorBox.textContent = state.filterError ? "at " + state.filterError.at + ": " + state.filterError.message : "";
      renderRows();
    }
    var timer = null;
    // Filters and redraws at once; returns the milliseconds it took (the benchmark calls it).
    function filterNow(text) {
      var started = performance.now();
      input.value = text;
      state.filterText = text;
      applyFilter();
      body.scrollTop = 0;
      update();
      history.replaceState(null, "", "#/instances?f=" + encodeURIComponent(state.filterText));
      document.body.setAttribute("data-filtered", String(Date.now()));
      return performance.now() - started;
    }
    state.filterNow = filterNow;
    // Typing waits for a pause (120 ms) so that each key does not filter the whole table.
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        filterNow(input.value);
      }, 120);
    });
    body.addEventListener("scroll", function () {
      state.scrollTop = body.scrollTop;
      renderRows();
    });
    setMain(
      h(
        "div",
        { class: "toolbar" },
        input,
        status,
        errorBox,
        h("span", {
          class: "muted",
          text:
            "columns: " +
            columns
              .map(function (c) {
                return c.name;
              })
              .join(", "),
        }),
      ),
      h("div", { class: "vt" }, head, body),
    );
    body.scrollTop = state.scrollTop;
    update();
    document.body.setAttribute("data-filtered", String(Date.now()));
  }

  function pairsView() {
    var s = state.summary;
    var cells = s.cells.map(function (c) {
      return c.cell;
    });
    var a = param("a") || cells[0];
    var b = param("b") || cells[1] || cells[0];
    function select(id, value) {
      return h(
        "select",
        {
          id: id,
          onchange: function () {
            location.hash =
              "#/pairs?a=" +
              encodeURIComponent(document.getElementById("pair-a").value) +
              "&b=" +
              encodeURIComponent(document.getElementById("pair-b").value);
          },
        },
        cells.map(function (c) {
          return h("option", { value: c, selected: c === value }, c);
        }),
      );
    }
    var binary = s.binary;
    var byInstance = function (cell) {
      var map = new Map();
      s.rows.cell.forEach(function (c, row) {
        if (c === cell) map.set(s.rows.instance[row], row);
      });
      return map;
    };
    var rowsA = byInstance(a),
      rowsB = byInstance(b);
    var aOnly = [],
      bOnly = [];
    rowsA.forEach(function (ra, id) {
      var rb = rowsB.get(id);
      if (rb === undefined) return;
      var x = s.rows[binary][ra],
        y = s.rows[binary][rb];
      if (x === null || y === null) return;
      if (x >= 1 && !(y >= 1)) aOnly.push([id, ra, rb]);
      if (y >= 1 && !(x >= 1)) bOnly.push([id, ra, rb]);
    });
    var stats = s.pairs.filter(function (p) {
      return (p.a === a && p.b === b) || (p.a === b && p.b === a);
    })[0];
    var flipped = stats && stats.a !== a;
    function list(title, items, id) {
      return h(
        "div",
        { id: id },
        h("h3", { text: title + " (" + items.length + ")" }),
        items.length === 0
          ? h("p", { class: "muted", text: "none" })
          : h(
              "table",
              { class: "grid" },
              h("tr", null, h("th", { text: "instance" }), h("th", { text: "side by side" })),
              items.map(function (item) {
                var ta = s.rows.t[item[1]],
                  tb = s.rows.t[item[2]];
                return h(
                  "tr",
                  null,
                  h("td", { text: item[0] }),
                  h("td", null, h("a", { class: "compare", href: "#/compare/" + ta + "/" + tb }, "open both")),
                );
              }),
            ),
      );
    }
    setMain(
      h("h2", { text: "Pair view: two cells on " + binary }),
      h("div", { class: "toolbar" }, "A ", select("pair-a", a), " B ", select("pair-b", b)),
      stats
        ? h(
            "p",
            { id: "pair-stats" },
            "n = " +
              stats.n +
              "; " +
              binary +
              " A = " +
              pct(flipped ? stats.bRate : stats.aRate) +
              " %, B = " +
              pct(flipped ? stats.aRate : stats.bRate) +
              " %; b (A only) = " +
              (flipped ? stats.bOnly : stats.aOnly) +
              ", c (B only) = " +
              (flipped ? stats.aOnly : stats.bOnly) +
              "; exact McNemar p = " +
              fmt(stats.p, 4) +
              "; θ = b/(b+c) in [" +
              fmt(flipped && stats.thetaUpper !== null ? 1 - stats.thetaUpper : stats.thetaLower) +
              ", " +
              fmt(flipped && stats.thetaLower !== null ? 1 - stats.thetaLower : stats.thetaUpper) +
              "] (95 %, exact)",
          )
        : h("p", { class: "muted", text: a === b ? "Pick two different cells." : "No shared instances." }),
      h(
        "div",
        { class: "side" },
        list("b: solved by A only", aOnly, "b-tasks"),
        list("c: solved by B only", bOnly, "c-tasks"),
      ),
    );
  }

  function highlight(text, query) {
    if (!query) return [text];
    var out = [];
    var lower = text.toLowerCase(),
      q = query.toLowerCase();
    var at = 0,
      found;
    while ((found = lower.indexOf(q, at)) >= 0) {
      if (found > at) out.push(text.slice(at, found));
      out.push(h("mark", { text: text.slice(found, found + q.length) }));
      at = found + q.length;
    }
    out.push(text.slice(at));
    return out;
  }
  function folded(text, query, label) {
    if (text === null || text === undefined) return null;
    var open = text.length <= FOLD_CHARS || (query && text.toLowerCase().indexOf(query.toLowerCase()) >= 0);
    return h(
      "details",
      { open: open ? true : null },
      h("summary", { text: (label || "observation") + " (" + text.length + " chars)" }),
      h("pre", null, highlight(text, query)),
    );
  }
  function touchBadge(touch) {
    var where =
      touch.path +
      (touch.lines.length
        ? ":" +
          touch.lines
            .slice(0, 3)
            .map(function (r) {
              return r.start === r.end ? r.start : r.start + "-" + r.end;
            })
            .join(",") +
          (touch.lines.length > 3 ? ",…" : "")
        : "");
    var text = touch.kind + " " + where + (touch.original ? " → " + touch.original : "");
    return h("span", {
      class: "badge " + (touch.mark ? "mark-" + touch.mark : "open"),
      "data-mark": touch.mark || "none",
      "data-path": touch.original || touch.path,
      text: text,
    });
  }
  function stepBox(step, query) {
    return h(
      "div",
      { class: "step", id: "step-" + step.index, "data-step": step.index },
      h("h4", {
        text:
          "Turn " +
          (step.index + 1) +
          (step.tokens !== null ? " · " + step.tokens + " tokens" : "") +
          (step.finishReason ? " · " + step.finishReason : ""),
      }),
      step.notes.map(function (note) {
        return h(
          "div",
          { class: "note " + note.kind },
          h("span", { class: "kind", text: note.kind }),
          highlight(note.text, query),
        );
      }),
      step.output ? folded(step.output, query, "output") : null,
      step.calls.map(function (call) {
        return h(
          "div",
          { class: "call" + (call.ok === false ? " failed" : "") },
          h("span", { class: "name", text: call.name }),
          " ",
          h("code", null, highlight(JSON.stringify(call.arguments), query)),
          call.touches.length ? h("div", { class: "touches" }, call.touches.map(touchBadge)) : null,
          folded(call.observation, query),
        );
      }),
    );
  }
  function diffBlock(text, title) {
    if (!text) return h("div", null, h("h3", { text: title }), h("p", { class: "muted", text: "none" }));
    return h(
      "div",
      { class: "diff" },
      h("h3", { text: title }),
      h(
        "pre",
        null,
        text.split("\n").map(function (line) {
          var cls =
            line.indexOf("+++") === 0 || line.indexOf("---") === 0
              ? null
              : line[0] === "+"
                ? "add"
                : line[0] === "-"
                  ? "del"
                  : line.indexOf("@@") === 0
                    ? "hunk"
                    : null;
          return h("div", { class: cls, text: line || " " });
        }),
      ),
    );
  }
  function trajectoryPanels(view, query) {
    var parts = [];
    parts.push(
      h(
        "div",
        { class: "traj-head" },
        h("strong", { text: view.instanceId }),
        view.cell ? h("span", { text: view.cell }) : null,
        badge("outcome", view.outcome),
        view.exit ? h("span", { text: "exit " + view.exit }) : null,
        view.model ? h("span", { class: "muted", text: view.model }) : null,
        h("span", { class: "muted", text: view.source }),
      ),
    );
    if (view.error) parts.push(h("div", { class: "note error" }, view.error));
    if (view.issue)
      parts.push(
        h(
          "details",
          { class: "issue" },
          h("summary", { text: view.issue.original ? "issue as the model saw it (a control changed it)" : "issue" }),
          h("pre", null, highlight(view.issue.shown, query)),
          view.issue.original ? [h("h3", { text: "issue as written" }), h("pre", { text: view.issue.original })] : null,
        ),
      );
    if (view.gold) {
      parts.push(
        h(
          "div",
          { id: "gold" },
          h("h3", { text: "Gold overlay (near: within " + view.gold.nearLines + " lines)" }),
          h(
            "table",
            { class: "grid" },
            h(
              "tr",
              null,
              h("th", { text: "gold span" }),
              h("th", { text: "mark" }),
              h("th", { text: "seen at turns" }),
            ),
            view.gold.spans.map(function (span) {
              return h(
                "tr",
                {
                  class: "gold-span",
                  "data-span": span.path + ":" + span.startLine + "-" + span.endLine,
                  "data-mark": span.mark,
                },
                h("td", { text: span.path + ":" + span.startLine + "-" + span.endLine }),
                h("td", null, h("span", { class: "badge mark-" + span.mark, text: span.mark })),
                h(
                  "td",
                  null,
                  span.hitSteps.map(function (s) {
                    return h("a", { href: "#step-" + s, "data-goto": s, text: "hit " + (s + 1) + " " });
                  }),
                  span.nearSteps.map(function (s) {
                    return h("a", { href: "#step-" + s, "data-goto": s, text: "near " + (s + 1) + " " });
                  }),
                ),
              );
            }),
          ),
        ),
      );
    }
    if (view.overlayNote) parts.push(h("div", { class: "note harness", id: "overlay-note", text: view.overlayNote }));
    if (view.pathMap && Object.keys(view.pathMap).length) {
      parts.push(
        h(
          "details",
          { id: "path-map" },
          h("summary", { text: "shuffled paths → original (" + Object.keys(view.pathMap).length + ")" }),
          h(
            "table",
            { class: "grid" },
            Object.keys(view.pathMap).map(function (p) {
              return h("tr", null, h("td", { text: p }), h("td", { text: view.pathMap[p] }));
            }),
          ),
        ),
      );
    }
    return parts;
  }
  function finalPanels(view) {
    var parts = [];
    if (view.final) {
      parts.push(
        h(
          "div",
          { id: "final" },
          h("h3", { text: "Final locations" }),
          h(
            "table",
            { class: "grid" },
            view.final.locations.map(function (l) {
              return h(
                "tr",
                {
                  class: "final-location",
                  "data-location": l.path + ":" + l.startLine + "-" + l.endLine,
                  "data-mark": l.mark || "none",
                },
                h("td", { text: l.path + ":" + l.startLine + "-" + l.endLine }),
                h("td", null, l.mark ? h("span", { class: "badge mark-" + l.mark, text: l.mark }) : "–"),
                h("td", { text: l.role || "" }),
                h("td", { text: l.symbol || "" }),
              );
            }),
          ),
          view.final.finding
            ? h(
                "dl",
                { class: "finding" },
                Object.keys(view.final.finding).map(function (k) {
                  return [h("dt", { text: k }), h("dd", { text: view.final.finding[k] })];
                }),
              )
            : null,
        ),
      );
    }
    if (view.fgl) parts.push(heatMap(view.fgl));
    if (view.judge)
      parts.push(
        h("div", { id: "judge" }, h("h3", { text: "Judge" }), h("pre", { text: JSON.stringify(view.judge, null, 1) })),
      );
    if (view.repair) {
      parts.push(
        h(
          "div",
          { id: "repair" },
          h("h3", null, "Repair: ", badge("resolved", view.repair.resolved ? 1 : 0), " " + view.repair.status),
          h(
            "div",
            { class: "side" },
            diffBlock(view.repair.patch, "the agent's patch"),
            diffBlock(view.repair.goldPatch, "the gold patch"),
          ),
          view.repair.tests.length
            ? h(
                "table",
                { class: "grid", id: "tests" },
                h("tr", null, h("th", { text: "test" }), h("th", { text: "expected" }), h("th", { text: "result" })),
                view.repair.tests.map(function (t) {
                  return h(
                    "tr",
                    null,
                    h("td", { text: t.name }),
                    h("td", { text: t.expected }),
                    h("td", null, badge("resolved", t.passed ? 1 : 0)),
                  );
                }),
              )
            : null,
        ),
      );
    }
    return parts;
  }

  // FGL: y+'s tokens shaded by the frozen fixer's log p: the less likely, the darker (a lightness
  // scale, so it reads the same in greyscale); each token's value in its tooltip.
  function heatMap(fgl) {
    var floor = -8;
    function shade(logprob) {
      var x = Math.max(0, Math.min(1, logprob / floor));
      return "background:hsl(18,85%," + (97 - 62 * x).toFixed(1) + "%);color:" + (x > 0.6 ? "#fff" : "#000");
    }
    return h(
      "div",
      { id: "fgl" },
      h("h3", {
        text: "FGL: the frozen fixer's log p of y+ (" + fgl.candidate + (fgl.teacher ? ", the teacher" : "") + ")",
      }),
      h(
        "p",
        null,
        "score " +
          fmt(fgl.score, 4) +
          " · mean log p " +
          fmt(fgl.meanLogprob, 4) +
          " nats/token · ctx " +
          fgl.ctxTokens +
          " tokens · extra reads " +
          fgl.extraReads +
          " · shade: 0 ",
        h("span", { class: "heat-legend", style: shade(0) }, " "),
        " → ",
        h("span", { class: "heat-legend", style: shade(floor) }, " "),
        " " + floor + " or less",
      ),
      fgl.lines.length === 0
        ? h("p", { class: "muted", text: "No token detail in this scores file (scored before loclab kept it)." })
        : h(
            "pre",
            { class: "heat" },
            fgl.lines.map(function (line, index) {
              return h(
                "div",
                { "data-line": index },
                line.tokens.map(function (token) {
                  return h(
                    "span",
                    { style: shade(token[1]), title: token[1].toFixed(4), "data-logprob": token[1] },
                    token[0],
                  );
                }),
              );
            }),
          ),
    );
  }

  function trajectoryView(id) {
    setMain(h("p", { class: "loading", text: "Loading trajectory " + id + "…" }));
    trajectory(id).then(function (view) {
      var query = param("q") || "";
      var current = Number(param("step") || 0);
      var search = h("input", { type: "text", id: "traj-search", value: query, placeholder: "search this trajectory" });
      var count = h("span", { id: "match-count" });
      var steps = h(
        "div",
        { id: "steps" },
        view.steps.map(function (step) {
          return stepBox(step, query);
        }),
      );
      function matches() {
        if (!query) return 0;
        return steps.querySelectorAll("mark").length;
      }
      function go(step) {
        current = Math.max(0, Math.min(view.steps.length - 1, step));
        steps.querySelectorAll(".step.current").forEach(function (n) {
          n.classList.remove("current");
        });
        var box = document.getElementById("step-" + current);
        if (box) {
          box.classList.add("current");
          box.scrollIntoView({ block: "nearest" });
        }
        document.getElementById("step-pos").textContent = view.steps.length
          ? "turn " + (current + 1) + " of " + view.steps.length
          : "no turns";
      }
      search.addEventListener("keydown", function (e) {
        if (e.key === "Enter") location.hash = "#/t/" + id + "?q=" + encodeURIComponent(search.value);
      });
      setMain(
        h(
          "div",
          {
            id: "trajectory",
            "data-t": id,
            onclick: function (e) {
              var target = e.target.closest && e.target.closest("[data-goto]");
              if (target) {
                e.preventDefault();
                go(Number(target.getAttribute("data-goto")));
              }
            },
          },
          h(
            "div",
            { class: "toolbar" },
            h(
              "button",
              {
                id: "prev-step",
                onclick: function () {
                  go(current - 1);
                },
              },
              "◀ previous turn",
            ),
            h("span", { id: "step-pos" }),
            h(
              "button",
              {
                id: "next-step",
                onclick: function () {
                  go(current + 1);
                },
              },
              "next turn ▶",
            ),
            search,
            count,
            h("a", { href: "#/search?q=" + encodeURIComponent(query) }, "search all trajectories"),
          ),
          trajectoryPanels(view, query),
          steps,
          finalPanels(view),
        ),
      );
      count.textContent = query ? matches() + " matches" : "";
      go(current);
    }, showError);
  }

  function compareView(ta, tb) {
    setMain(h("p", { class: "loading", text: "Loading both trajectories…" }));
    Promise.all([trajectory(ta), trajectory(tb)]).then(function (views) {
      var a = views[0],
        b = views[1];
      var turns = Math.max(a.steps.length, b.steps.length);
      var rows = [];
      for (var i = 0; i < turns; i++) {
        rows.push(a.steps[i] ? stepBox(a.steps[i], "") : h("div", { class: "empty", text: "no turn " + (i + 1) }));
        rows.push(b.steps[i] ? stepBox(b.steps[i], "") : h("div", { class: "empty", text: "no turn " + (i + 1) }));
      }
      setMain(
        h("h2", { text: "Side by side, turn by turn: " + a.instanceId }),
        h(
          "div",
          { class: "side" },
          h("div", { id: "left" }, trajectoryPanels(a, "")),
          h("div", { id: "right" }, trajectoryPanels(b, "")),
        ),
        h("div", { class: "aligned", id: "aligned" }, rows),
        h("div", { class: "side" }, h("div", null, finalPanels(a)), h("div", null, finalPanels(b))),
      );
    }, showError);
  }

  var searchRun = 0;
  function searchView() {
    var s = state.summary;
    var query = param("q") || "";
    var run = ++searchRun;
    if (!state.order) applyFilter();
    var scope = Array.prototype.filter.call(state.order, function (row) {
      return s.rows.t[row] >= 0;
    });
    var input = h("input", {
      type: "text",
      id: "search-all",
      value: query,
      placeholder: "text in outputs, calls, observations, notes",
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Enter") location.hash = "#/search?q=" + encodeURIComponent(input.value);
    });
    var progress = h("span", { id: "search-progress" });
    var results = h(
      "table",
      { class: "grid", id: "search-results" },
      h(
        "tr",
        null,
        h("th", { text: "instance" }),
        h("th", { text: "cell" }),
        h("th", { class: "num", text: "matches" }),
        h("th", { text: "first turn" }),
      ),
    );
    setMain(
      h(
        "div",
        { class: "toolbar" },
        input,
        progress,
        h("span", {
          class: "muted",
          text:
            "over the " +
            scope.length +
            " trajectories of the instance table's filter" +
            (state.filterText ? " (" + state.filterText + ")" : ""),
        }),
      ),
      results,
    );
    if (!query) return;
    var q = query.toLowerCase();
    var next = 0,
      done = 0,
      found = 0;
    function count(text) {
      if (!text) return 0;
      var lower = text.toLowerCase(),
        n = 0,
        at = 0;
      while ((at = lower.indexOf(q, at)) >= 0) {
        n++;
        at += q.length;
      }
      return n;
    }
    function worker() {
      if (run !== searchRun || next >= scope.length) return Promise.resolve();
      var row = scope[next++];
      return trajectory(s.rows.t[row])
        .then(
          function (view) {
            var total = 0,
              first = -1;
            view.steps.forEach(function (step) {
              var n =
                count(step.output) +
                step.notes.reduce(function (sum, note) {
                  return sum + count(note.text);
                }, 0) +
                step.calls.reduce(function (sum, call) {
                  return sum + count(JSON.stringify(call.arguments)) + count(call.observation);
                }, 0);
              if (n > 0 && first < 0) first = step.index;
              total += n;
            });
            done++;
            if (total > 0 && run === searchRun) {
              found++;
              results.appendChild(
                h(
                  "tr",
                  null,
                  h(
                    "td",
                    null,
                    h("a", {
                      href: "#/t/" + view.id + "?q=" + encodeURIComponent(query) + "&step=" + first,
                      text: view.instanceId,
                    }),
                  ),
                  h("td", { text: view.cell || "" }),
                  h("td", { class: "num", text: total }),
                  h("td", { class: "num", text: first + 1 }),
                ),
              );
            }
            progress.textContent = done + " of " + scope.length + " read, " + found + " with matches";
          },
          function () {
            done++;
          },
        )
        .then(worker);
    }
    progress.textContent = "searching…";
    Promise.all([worker(), worker(), worker(), worker()]).then(function () {
      if (run === searchRun) {
        progress.textContent = done + " of " + scope.length + " read, " + found + " with matches";
        document.body.setAttribute("data-search", "done");
      }
    });
  }

  function showError(error) {
    setMain(h("div", { class: "problems", text: String((error && error.message) || error) }));
  }

  function route() {
    if (!state.summary) return;
    var path = location.hash.replace(/^#/, "").split("?")[0] || "/";
    if (path.indexOf("step-") === 0) return; // an in-page jump
    var parts = path.split("/").filter(Boolean);
    var view = parts[0] || "overview";
    document.querySelectorAll("header nav a").forEach(function (a) {
      a.classList.toggle(
        "active",
        a.getAttribute("data-view") === view || (view === "t" && a.getAttribute("data-view") === "instances"),
      );
    });
    document.body.setAttribute("data-view", view);
    if (view === "overview") overview();
    else if (view === "instances") instances();
    else if (view === "pairs") pairsView();
    else if (view === "compare") compareView(Number(parts[1]), Number(parts[2]));
    else if (view === "t") trajectoryView(Number(parts[1]));
    else if (view === "search") searchView();
    else overview();
  }

  function start(summary) {
    var first = !state.summary;
    state.summary = summary;
    state.order = null;
    // A new revision may number the trajectories differently: nothing loaded before is kept.
    if (!first) cache.clear();
    document.getElementById("title").textContent = summary.title + " · " + summary.rows.t.length + " rows";
    document.title = "loclab · " + summary.title;
    var view = document.body.getAttribute("data-view");
    // A refresh redraws the overview and the table; a trajectory or a search being read stays.
    if (first || view === "overview" || view === "instances" || view === "pairs") route();
    document.body.setAttribute("data-revision", String(summary.revision));
    document.body.setAttribute("data-ready", "true");
  }

  window.addEventListener("hashchange", route);
  load("summary").then(function (summary) {
    live = summary.live === true;
    start(summary);
    if (live && window.EventSource) {
      document.getElementById("live").hidden = false;
      var events = new EventSource("events");
      events.addEventListener("revision", function (e) {
        var revision = Number(e.data);
        if (revision !== state.summary.revision) load("summary", revision).then(start);
      });
    }
  }, showError);
})();
