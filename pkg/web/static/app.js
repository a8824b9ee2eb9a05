// The page of `update-status web`: it follows the server's event stream
// (/events) and draws the control plane, one grid of node cells per pool,
// and the health insights. No framework, nothing fetched from elsewhere.
"use strict";

(function () {
  // Cell states: label, letter and mark, so that the grid reads without colour.
  var STATES = [
    { id: "updated", label: "Updated", letter: "\u2713", mark: "solid" },
    { id: "updating", label: "Updating", letter: "U", mark: "slash" },
    { id: "draining", label: "Draining", letter: "D", mark: "half" },
    { id: "rebooting", label: "Rebooting", letter: "R", mark: "dot" },
    { id: "degraded", label: "Degraded", letter: "X", mark: "cross" },
    { id: "unavailable", label: "Unavailable", letter: "N", mark: "bar" },
    { id: "paused", label: "Paused / excluded", letter: "P", mark: "pause" },
    { id: "outdated", label: "Outdated (waiting)", letter: "O", mark: "hollow" },
    { id: "unknown", label: "Unknown", letter: "?", mark: "ring" }
  ];
  var BY_ID = {};
  var css = getComputedStyle(document.documentElement);
  STATES.forEach(function (s) {
    s.color = css.getPropertyValue("--" + s.id).trim() || "#888";
    BY_ID[s.id] = s;
  });
  // A node whose drain an external informer says a PodDisruptionBudget
  // holds (the cell's bb): a corner mark over its state.
  var BLOCKED = css.getPropertyValue("--blocked").trim() || "#000";
  var LEVELS = ["Critical", "Error", "Warning", "Info", "Unknown"];

  var $ = function (id) { return document.getElementById(id); };

  // The picture.
  var nodes = new Map();      // name -> node
  var pools = new Map();      // name -> pool view
  var controlPlane = null;
  var hosted = null;          // the hosted cluster followed, null for a standalone one
  var serverOffset = 0;       // server clock minus browser clock, ms
  var dirty = new Set();      // pools to redraw
  var frameAsked = false;

  // ---- the stream ----
  var es = null;
  var lastMessage = 0;
  var reconnectTimer = null;
  var streamURL = "", streamHandlers = null;

  function setStream(state, text) {
    var el = $("stream");
    el.setAttribute("data-stream", state);
    el.textContent = text;
  }

  // connect follows the event stream at url (again, when url is omitted),
  // its snapshot, delta and apierror events going to handlers.
  function connect(url, handlers) {
    if (url) { streamURL = url; streamHandlers = handlers; }
    if (reconnectTimer) { clearTimeout(reconnectTimer); reconnectTimer = null; }
    if (es) { es.close(); }
    setStream("connecting", "connecting…");
    var h = streamHandlers;
    var mine = es = new EventSource(streamURL);
    es.onopen = function () { lastMessage = Date.now(); };
    es.onerror = function () {
      if (mine !== es) { return; }
      setStream("broken", "stream broken, reconnecting…");
      // EventSource retries by itself unless the server answered with an
      // error; then we retry.
      if (es.readyState === EventSource.CLOSED && !reconnectTimer) {
        reconnectTimer = setTimeout(function () { connect(); }, 2000);
      }
    };
    Object.keys(h).forEach(function (name) {
      es.addEventListener(name, function (e) {
        if (mine !== es) { return; }
        seen();
        h[name](JSON.parse(e.data));
      });
    });
    es.addEventListener("ping", function (e) { seen(); serverOffset = Number(e.data) - Date.now(); });
  }

  function seen() {
    lastMessage = Date.now();
    if ($("stream").getAttribute("data-stream") !== "live") { setStream("live", "live"); }
  }

  // A stream that carries nothing, not even the heartbeat, is broken.
  setInterval(function () {
    if (es && lastMessage && Date.now() - lastMessage > 40000) {
      lastMessage = 0;
      setStream("broken", "stream silent, reconnecting…");
      connect();
    }
  }, 5000);

  // startCluster shows the page of one cluster, from the stream at url.
  function startCluster(url) {
    document.body.setAttribute("data-view", "cluster");
    connect(url, {
      snapshot: function (s) {
        applySnapshot(s);
        // The first picture is drawn as it is; later changes are animated.
        setTimeout(function () { document.body.classList.add("moving"); }, 1000);
      },
      delta: applyDelta,
      apierror: function (e) { showErrors(e.errors || []); }
    });
  }

  // ---- applying events ----
  function applySnapshot(s) {
    serverOffset = Date.parse(s.now) - Date.now();
    nodes.clear();
    setHosted(s.hostedCluster);
    pools.forEach(function (p) { p.el.remove(); });
    pools.clear();
    (s.pools || []).forEach(setPool);
    (s.nodes || []).forEach(function (n) { nodes.set(n.n, n); });
    rebuildPoolLists();
    setSource(s.source, s.synced);
    setControlPlane(s.controlPlane);
    setHealth(s.health || []);
    showErrors(s.errors || []);
    orderPools();
  }

  function applyDelta(d) {
    serverOffset = Date.parse(d.now) - Date.now();
    if (d.source !== undefined || d.synced !== undefined) {
      setSource(d.source !== undefined ? d.source : document.body.getAttribute("data-source"),
        d.synced !== undefined ? d.synced : document.body.getAttribute("data-synced") === "true");
    }
    var reorder = false;
    (d.removedPools || []).forEach(function (name) {
      var p = pools.get(name);
      if (p) { p.el.remove(); pools.delete(name); }
    });
    (d.pools || []).forEach(function (p) { if (!pools.has(p.name)) { reorder = true; } setPool(p); });
    (d.removed || []).forEach(function (name) {
      var old = nodes.get(name);
      if (!old) { return; }
      nodes.delete(name);
      var p = pools.get(old.p);
      if (p) { removeSorted(p.names, name); p.layoutChanged = true; markDirty(p); }
    });
    (d.nodes || []).forEach(function (n) {
      var old = nodes.get(n.n);
      nodes.set(n.n, n);
      if (old && old.p === n.p) {
        var p = pools.get(n.p);
        if (p) { markDirty(p); }
        return;
      }
      if (old) {
        var op = pools.get(old.p);
        if (op) { removeSorted(op.names, n.n); op.layoutChanged = true; markDirty(op); }
      }
      var np = pools.get(n.p);
      if (!np) { np = setPool({ name: n.p, nodes: 0, counts: {} }); reorder = true; }
      insertSorted(np.names, n.n);
      np.layoutChanged = true;
      markDirty(np);
    });
    if (d.controlPlane) { setControlPlane(d.controlPlane); }
    if (d.healthChanged) { setHealth(d.health || []); }
    if (reorder || (d.removedPools || []).length) { orderPools(); }
  }

  function insertSorted(a, name) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid] < name) { lo = mid + 1; } else { hi = mid; } }
    if (a[lo] !== name) { a.splice(lo, 0, name); }
  }
  function removeSorted(a, name) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid] < name) { lo = mid + 1; } else { hi = mid; } }
    if (a[lo] === name) { a.splice(lo, 1); }
  }

  function rebuildPoolLists() {
    pools.forEach(function (p) { p.names = []; p.layoutChanged = true; });
    var names = Array.from(nodes.keys()).sort();
    names.forEach(function (name) {
      var n = nodes.get(name);
      var p = pools.get(n.p) || setPool({ name: n.p, nodes: 0, counts: {} });
      p.names.push(name);
    });
    pools.forEach(markDirty);
  }

  // setHosted names the page after the hosted cluster it follows: its
  // control plane's components, its NodePools.
  function setHosted(h) {
    if (!h || hosted) { return; }
    hosted = h;
    var title = "Hosted cluster " + h.namespace + "/" + h.name + " update status";
    document.title = title;
    document.querySelector("header h1").textContent = title;
    document.body.setAttribute("data-hosted-cluster", h.namespace + "/" + h.name);
    $("cp-operators").previousElementSibling.textContent = "Components";
  }

  function setSource(source, synced) {
    document.body.setAttribute("data-source", source || "");
    document.body.setAttribute("data-synced", synced ? "true" : "false");
    var text = source === "insights" ? "per-insight resources" : source === "updatestatus" ? "updatestatuses/cluster" :
      source === "hosted-insights" ? "hosted per-insight resources" :
      source === "hostedclusterupdatestatus" && hosted ? "hostedclusterupdatestatuses/" + hosted.name : "";
    $("source").textContent = text ? "reading " + text + (synced ? "" : " (loading…)") : "";
  }

  // ---- control plane ----
  function setControlPlane(cp) {
    controlPlane = cp;
    var sec = $("control-plane");
    if (!cp) { return; }
    $("cp-waiting").hidden = !!cp.target;
    sec.setAttribute("data-assessment", cp.assessment);
    sec.setAttribute("data-completion", String(cp.completion));
    var a = $("cp-assessment");
    a.textContent = cp.display || cp.assessment;
    a.setAttribute("data-value", cp.display || cp.assessment);
    $("cp-target").textContent = cp.target || "–";
    $("cp-previous").textContent = cp.previous || "–";
    $("cp-bar").setAttribute("aria-valuenow", String(cp.completion));
    $("cp-bar-fill").style.width = cp.completion + "%";
    $("cp-bar-text").textContent = cp.completion + "% complete";
    var o = cp.operators || {};
    var ops = (o.updated || 0) + " of " + (o.total || 0) + " updated, " + cp.updating.length + " updating, " + (o.waiting || 0) + " waiting";
    if (o.degraded) { ops += ", " + o.degraded + " degraded"; }
    if (o.unavailable) { ops += ", " + o.unavailable + " unavailable"; }
    $("cp-operators").textContent = ops;
    $("cp-updating").textContent = cp.updating.length ? cp.updating.join(", ") : "none";
    tick();
  }

  function duration(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    if (h) { return h + "h" + (m ? m + "m" : ""); }
    if (m) { return m + "m" + (sec ? sec + "s" : ""); }
    return sec + "s";
  }

  // Durations move with the (server's) clock.
  function tick() {
    var cp = controlPlane;
    if (!cp || !cp.startedAt) { return; }
    var now = Date.now() + serverOffset;
    var end = cp.completedAt ? Date.parse(cp.completedAt) : now;
    $("cp-duration").textContent = duration(end - Date.parse(cp.startedAt)) + (cp.completedAt ? " (completed)" : "");
    var rem = "–";
    if (!cp.completedAt && cp.estimatedCompletedAt) {
      var left = Date.parse(cp.estimatedCompletedAt) - now;
      // oc pads the estimate by 20 %, and shrinks an overdue one as much.
      left = left >= 0 ? left * 1.2 : left / 1.2;
      rem = left >= 0 ? duration(left) : "overdue by " + duration(-left);
    } else if (cp.completedAt) {
      rem = "none";
    }
    $("cp-remaining").textContent = rem;
  }
  setInterval(tick, 1000);

  // ---- pools ----
  function setPool(s) {
    var p = pools.get(s.name);
    if (!p) {
      var el = document.createElement("section");
      el.className = "card pool";
      el.setAttribute("data-pool", s.name);
      var h = document.createElement("h2");
      var title = document.createElement("span");
      title.className = "title";
      title.textContent = s.name;
      var kind = document.createElement("span");
      kind.className = "kind";
      var assess = document.createElement("span");
      assess.className = "assessment";
      var compl = document.createElement("span");
      compl.className = "completion";
      h.append(title, kind, assess, compl);
      var counts = document.createElement("p");
      counts.className = "counts";
      var canvas = document.createElement("canvas");
      canvas.className = "grid";
      canvas.setAttribute("role", "img");
      el.append(h, counts, canvas);
      p = { name: s.name, el: el, kind: kind, assess: assess, compl: compl, counts: counts, canvas: canvas,
        names: [], layoutChanged: true, layout: null, summary: s };
      canvas.addEventListener("mousemove", function (e) { hover(p, e); });
      canvas.addEventListener("mouseleave", function () { $("tooltip").hidden = true; });
      pools.set(s.name, p);
      $("pools").appendChild(el);
    }
    p.summary = s;
    var el2 = p.el;
    el2.setAttribute("data-nodes", String(s.nodes));
    el2.setAttribute("data-scope", s.controlPlane ? "ControlPlane" : "WorkerPool");
    el2.setAttribute("data-assessment", s.assessment || "");
    el2.setAttribute("data-completion", String(s.completion));
    var total = s.summaries && s.summaries.Total !== undefined ? s.summaries.Total : s.nodes;
    el2.setAttribute("data-total", String(total));
    p.kind.textContent = s.controlPlane ? "control-plane nodes" : hosted ? "node pool" : "worker pool";
    p.assess.textContent = s.assessment || "";
    p.assess.setAttribute("data-value", s.assessment || "");
    // The pool insight's own count, which the completion is computed from:
    // an updated node that reboots or is unavailable still counts.
    var updated = (s.counts && s.counts.updated) || 0;
    if (s.summaries && s.summaries.Total !== undefined && s.summaries.Outdated !== undefined) {
      updated = s.summaries.Total - s.summaries.Outdated;
    }
    p.compl.textContent = s.completion + "% (" + updated + "/" + total + " nodes updated)";
    p.counts.textContent = "";
    var aria = [];
    STATES.forEach(function (st) {
      var c = (s.counts && s.counts[st.id]) || 0;
      el2.setAttribute("data-" + st.id, String(c));
      if (!c) { return; }
      var span = document.createElement("span");
      span.setAttribute("data-state", st.id);
      span.append(glyph(st, 14), " " + st.letter + " " + st.label + ": " + c);
      p.counts.appendChild(span);
      aria.push(c + " " + st.label.toLowerCase());
    });
    if (!s.nodes) { p.counts.textContent = "No nodes."; }
    p.canvas.setAttribute("aria-label", s.name + ": " + s.nodes + " nodes; " + aria.join(", "));
    markDirty(p);
    return p;
  }

  function orderPools() {
    var list = Array.from(pools.values());
    list.sort(function (a, b) {
      var ac = !!a.summary.controlPlane, bc = !!b.summary.controlPlane;
      if (ac !== bc) { return ac ? -1 : 1; }
      if ((a.name === "worker") !== (b.name === "worker")) { return a.name === "worker" ? -1 : 1; }
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    });
    var box = $("pools");
    list.forEach(function (p) { box.appendChild(p.el); });
  }

  function markDirty(p) {
    dirty.add(p);
    if (!frameAsked) {
      frameAsked = true;
      requestAnimationFrame(draw);
    }
  }

  // The cell size shrinks as pools grow, so that 10,000 nodes still fit.
  function cellSize(n) {
    if (n <= 150) { return 24; }
    if (n <= 600) { return 16; }
    if (n <= 2500) { return 10; }
    return 7;
  }

  function layoutOf(p) {
    var n = p.names.length;
    var size = cellSize(n);
    var gap = size >= 10 ? 2 : 1;
    var width = Math.max(200, p.el.clientWidth - 34);
    var cols = Math.max(1, Math.floor((width + gap) / (size + gap)));
    var rows = Math.max(1, Math.ceil(n / cols));
    return { size: size, gap: gap, cols: cols, rows: rows, width: cols * (size + gap) - gap, height: rows * (size + gap) - gap };
  }

  function draw() {
    frameAsked = false;
    dirty.forEach(function (p) { drawPool(p); });
    dirty.clear();
  }

  function drawPool(p) {
    if (!p.el.isConnected) { return; }
    var l = layoutOf(p);
    var dpr = window.devicePixelRatio || 1;
    var c = p.canvas;
    if (!p.layout || p.layout.width !== l.width || p.layout.height !== l.height || c.width !== Math.round(l.width * dpr)) {
      c.width = Math.round(l.width * dpr);
      c.height = Math.round(l.height * dpr);
      c.style.width = l.width + "px";
      c.style.height = l.height + "px";
    }
    p.layout = l;
    p.layoutChanged = false;
    var ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, l.width, l.height);
    for (var i = 0; i < p.names.length; i++) {
      var n = nodes.get(p.names[i]);
      var x = (i % l.cols) * (l.size + l.gap), y = Math.floor(i / l.cols) * (l.size + l.gap);
      drawCell(ctx, BY_ID[n.s] || BY_ID.unknown, x, y, l.size);
      if (n.bb && n.bb.length) { drawBlocked(ctx, x, y, l.size); }
    }
  }

  // drawBlocked marks a cell whose drain is blocked: a triangle in its
  // top-right corner, edged in white so that it shows on every colour.
  function drawBlocked(ctx, x, y, s) {
    var t = Math.max(4, Math.round(s * 0.45));
    ctx.beginPath();
    ctx.moveTo(x + s - t, y);
    ctx.lineTo(x + s, y);
    ctx.lineTo(x + s, y + t);
    ctx.closePath();
    ctx.fillStyle = BLOCKED;
    ctx.fill();
    ctx.lineWidth = 1;
    ctx.strokeStyle = "#fff";
    ctx.stroke();
  }

  // drawCell draws one node: its colour, and its letter when the cell is
  // large enough, else a mark (a slash, a cross, a bar...).
  function drawCell(ctx, st, x, y, s) {
    var lw = Math.max(1, Math.round(s / 8));
    var hollow = st.mark === "hollow" || st.mark === "ring";
    ctx.lineWidth = lw;
    if (hollow) {
      ctx.fillStyle = "#fff";
      ctx.fillRect(x, y, s, s);
      ctx.strokeStyle = st.color;
      ctx.strokeRect(x + lw / 2, y + lw / 2, s - lw, s - lw);
    } else {
      ctx.fillStyle = st.color;
      ctx.fillRect(x, y, s, s);
    }
    if (s >= 14) {
      ctx.fillStyle = hollow ? st.color : "#fff";
      ctx.font = "bold " + Math.round(s * 0.62) + "px 'Liberation Sans', 'DejaVu Sans', Arial, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(st.letter, x + s / 2, y + s / 2 + 1);
      return;
    }
    ctx.strokeStyle = st.mark === "ring" ? st.color : "#fff";
    ctx.fillStyle = st.mark === "ring" ? st.color : "#fff";
    var m = Math.max(1, Math.floor(s / 4));
    ctx.beginPath();
    switch (st.mark) {
      case "slash": ctx.moveTo(x + m, y + s - m); ctx.lineTo(x + s - m, y + m); ctx.stroke(); break;
      case "cross": ctx.moveTo(x + m, y + m); ctx.lineTo(x + s - m, y + s - m); ctx.moveTo(x + s - m, y + m); ctx.lineTo(x + m, y + s - m); ctx.stroke(); break;
      case "half": ctx.fillRect(x + lw, y + Math.ceil(s / 2), s - 2 * lw, Math.floor(s / 2) - lw); break;
      case "bar": ctx.fillRect(x + m, y + s / 2 - lw / 2, s - 2 * m, lw); break;
      case "pause": ctx.fillRect(x + m, y + m, lw, s - 2 * m); ctx.fillRect(x + s - m - lw, y + m, lw, s - 2 * m); break;
      case "dot": case "ring": ctx.fillRect(x + s / 2 - lw, y + s / 2 - lw, 2 * lw, 2 * lw); break;
    }
  }

  function glyph(st, s) {
    var c = document.createElement("canvas");
    var dpr = window.devicePixelRatio || 1;
    c.width = s * dpr; c.height = s * dpr;
    c.style.width = s + "px"; c.style.height = s + "px";
    c.setAttribute("aria-hidden", "true");
    var ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawCell(ctx, st, 0, 0, s);
    return c;
  }

  function hover(p, e) {
    var l = p.layout, tip = $("tooltip");
    if (!l) { return; }
    var r = p.canvas.getBoundingClientRect();
    var col = Math.floor((e.clientX - r.left) / (l.size + l.gap));
    var row = Math.floor((e.clientY - r.top) / (l.size + l.gap));
    var i = row * l.cols + col;
    var n = col < l.cols && i >= 0 && i < p.names.length ? nodes.get(p.names[i]) : null;
    if (!n) { tip.hidden = true; return; }
    var st = BY_ID[n.s] || BY_ID.unknown;
    tip.textContent = "";
    var b = document.createElement("b");
    b.textContent = n.n;
    tip.append(b, document.createElement("br"), st.letter + " " + st.label +
      (n.a ? " — assessment " + n.a : "") + (n.ph ? ", phase " + n.ph : ""));
    var lines = [];
    if (n.v) { lines.push("version " + n.v); }
    if (n.e && n.e !== "-") { lines.push("estimate " + n.e); }
    if (n.m) { lines.push(n.m); }
    lines.forEach(function (t) { tip.append(document.createElement("br"), t); });
    var blocked = !!(n.bb && n.bb.length);
    tip.classList.toggle("blocked", blocked);
    if (blocked) {
      var box = document.createElement("div");
      box.className = "blockers";
      box.append("Drain blocked by PodDisruptionBudget " + n.bb.join(", "));
      if (n.bp && n.bp.length) { box.append(document.createElement("br"), "pods " + n.bp.join(", ")); }
      tip.appendChild(box);
    }
    tip.hidden = false;
    var x = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    var y = e.clientY + 16 + tip.offsetHeight > window.innerHeight ? e.clientY - tip.offsetHeight - 8 : e.clientY + 16;
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  window.addEventListener("resize", function () { pools.forEach(markDirty); });

  // ---- health ----
  function setHealth(list) {
    var box = $("health-levels");
    box.textContent = "";
    $("health").setAttribute("data-count", String(list.length));
    $("health-none").hidden = list.length > 0;
    LEVELS.forEach(function (level) {
      var items = list.filter(function (h) { return (LEVELS.indexOf(h.level) < 0 ? "Unknown" : h.level) === level; });
      if (!items.length) { return; }
      var sec = document.createElement("div");
      sec.className = "level";
      sec.setAttribute("data-level", level);
      var h3 = document.createElement("h3");
      h3.textContent = level + " (" + items.length + ")";
      var ul = document.createElement("ul");
      items.slice(0, 500).forEach(function (h) { ul.appendChild(healthItem(h)); });
      if (items.length > 500) {
        var more = document.createElement("li");
        more.textContent = "… and " + (items.length - 500) + " more";
        ul.appendChild(more);
      }
      sec.append(h3, ul);
      box.appendChild(sec);
    });
  }

  function healthItem(h) {
    var li = document.createElement("li");
    li.className = "insight";
    li.setAttribute("data-level", h.level);
    li.setAttribute("data-uid", h.uid);
    var tag = document.createElement("span");
    tag.className = "tag";
    tag.textContent = h.level.toUpperCase();
    var sum = document.createElement("b");
    sum.textContent = h.summary;
    var meta = document.createElement("div");
    meta.className = "meta";
    var parts = [h.type + " impact", h.scope === "ControlPlane" ? "control plane" : "worker pools"];
    if (h.startedAt) { parts.push("since " + new Date(h.startedAt).toLocaleString()); }
    if (h.resources && h.resources.length) { parts.push(h.resources.join(", ")); }
    if (h.informer) { parts.push("informer " + h.informer); }
    meta.textContent = parts.join(" · ");
    if (h.informer) { li.setAttribute("data-informer", h.informer); }
    li.append(tag, sum, meta);
    if (h.reference) {
      var rem = document.createElement("div");
      rem.append("Remediation: ");
      if (h.link) {
        var a = document.createElement("a");
        a.href = h.reference;
        a.textContent = h.reference;
        a.rel = "noreferrer noopener";
        a.target = "_blank";
        rem.appendChild(a);
      } else {
        rem.append(h.reference);
      }
      li.appendChild(rem);
    }
    if (h.description) {
      var det = document.createElement("details");
      var s = document.createElement("summary");
      s.textContent = "Description";
      var pre = document.createElement("pre");
      pre.textContent = h.description;
      det.append(s, pre);
      li.appendChild(det);
    }
    return li;
  }

  // ---- API errors ----
  function showErrors(errs) {
    var box = $("errors");
    box.setAttribute("data-errors", String(errs.length));
    box.textContent = "";
    box.hidden = errs.length === 0;
    if (!errs.length) { return; }
    var h = document.createElement("h2");
    h.textContent = "The cluster API refused or failed a read; what this page shows may be missing or stale:";
    var ul = document.createElement("ul");
    errs.forEach(function (e) {
      var li = document.createElement("li");
      li.setAttribute("data-reason", e.reason);
      li.setAttribute("data-resource", e.resource);
      var b = document.createElement("b");
      b.textContent = e.reason + " (" + e.resource + "): ";
      li.append(b, e.message);
      ul.appendChild(li);
    });
    box.append(h, ul);
  }

  // ---- legend ----
  STATES.forEach(function (st) {
    var li = document.createElement("li");
    li.setAttribute("data-state", st.id);
    li.append(glyph(st, 16), glyph(st, 8), " " + st.letter + " " + st.label);
    $("legend").appendChild(li);
  });
  (function () {
    var li = document.createElement("li");
    li.setAttribute("data-state", "blocked");
    var c = glyph(BY_ID.draining, 16);
    var ctx = c.getContext("2d");
    drawBlocked(ctx, 0, 0, 16);
    li.append(c, " Drain blocked by a PodDisruptionBudget (hover for the budget and pods)");
    $("legend").appendChild(li);
  })();

  // ---- the fleet ----
  // Cell classes, worst first (web.FleetClasses): label and letter, so that
  // the grid reads without colour.
  var FLEET = [
    { id: "degraded", label: "Degraded", letter: "X" },
    { id: "slow", label: "Slow or stalled", letter: "S" },
    { id: "updating", label: "Control plane updating", letter: "U" },
    { id: "nodes", label: "Node pools updating", letter: "N" },
    { id: "unknown", label: "Unknown", letter: "?" },
    { id: "idle", label: "Not updating", letter: "\u2713" }
  ];
  var FLEET_BY_ID = {};
  FLEET.forEach(function (c, i) { c.rank = i; FLEET_BY_ID[c.id] = c; });
  var fleet = new Map();   // "namespace/name" -> {c: cell, el: element, sort: key}
  var fleetOrder = [];     // the cells' sort keys, in the grid's order
  var fleetCounts = {};    // class -> count; _stalled and _updating: those counts
  var landed = false;

  // fleetSort is a cell's place: stalled first, then by class, then by
  // namespace and name (as the server orders them).
  function fleetSort(c) {
    var r = FLEET_BY_ID[c.c] ? FLEET_BY_ID[c.c].rank : FLEET.length;
    if (!c.s) { r += FLEET.length + 1; }
    return String(r + 10) + "\u0000" + c.ns + "\u0000" + c.n;
  }

  function search(a, key) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid] < key) { lo = mid + 1; } else { hi = mid; } }
    return lo;
  }

  function navLink(id, text, href) {
    var a = document.querySelector('#nav a[data-nav="' + id + '"]');
    if (!a) {
      a = document.createElement("a");
      a.setAttribute("data-nav", id);
      $("nav").appendChild(a);
    }
    a.textContent = text;
    a.href = href;
  }

  function startFleet(forced) {
    document.body.setAttribute("data-view", "");
    if (!forced) {
      // A fleet that does not answer does not hold the page back for long.
      setTimeout(function () { if (!landed) { land("cluster", false); } }, 10000);
    }
    connect("fleet/events", {
      snapshot: function (s) {
        fleetHeader(s, forced);
        fleet.forEach(function (e) { e.el.remove(); });
        fleet.clear();
        fleetOrder = [];
        fleetCounts = {};
        var frag = document.createDocumentFragment();
        (s.cells || []).forEach(function (c) {
          var e = { el: fleetCell(), c: null, sort: fleetSort(c) };
          fleetFill(e, c);
          fleet.set(c.ns + "/" + c.n, e);
          fleetOrder.push(e.sort);
        });
        fleetOrder.sort();
        // The server sends the cells in this order already.
        var els = Array.from(fleet.values()).sort(function (a, b) { return a.sort < b.sort ? -1 : a.sort > b.sort ? 1 : 0; });
        els.forEach(function (e) { frag.appendChild(e.el); });
        $("fleet").appendChild(frag);
        fleetSummary(s);
      },
      delta: function (d) {
        fleetHeader(d, forced);
        (d.removed || []).forEach(function (key) {
          var e = fleet.get(key);
          if (!e) { return; }
          fleetUncount(e.c);
          fleetOrder.splice(search(fleetOrder, e.sort), 1);
          e.el.remove();
          fleet.delete(key);
        });
        (d.cells || []).forEach(function (c) {
          var key = c.ns + "/" + c.n, e = fleet.get(key), sort = fleetSort(c);
          if (e && e.sort === sort) { fleetFill(e, c); return; }
          if (e) {
            fleetOrder.splice(search(fleetOrder, e.sort), 1);
          } else {
            e = { el: fleetCell(), c: null, sort: sort };
            fleet.set(key, e);
          }
          e.sort = sort;
          fleetFill(e, c);
          var i = search(fleetOrder, sort);
          fleetOrder.splice(i, 0, sort);
          var next = i + 1 < fleetOrder.length ? fleet.get(keyOfSort(fleetOrder[i + 1])) : null;
          $("fleet").insertBefore(e.el, next ? next.el : null);
        });
        fleetSummary(d);
      }
    });
  }

  function keyOfSort(sort) {
    var parts = sort.split("\u0000");
    return parts[1] + "/" + parts[2];
  }

  // fleetHeader applies what every fleet event says besides the cells,
  // and decides, once, which page `/` shows.
  function fleetHeader(h, forced) {
    serverOffset = Date.parse(h.now) - Date.now();
    showErrors(h.errors || []);
    if (h.standalone) { navLink("standalone", "Standalone cluster", "?view=standalone"); }
    if (h.pinned) { navLink("pinned", "Hosted cluster " + h.pinned.namespace + "/" + h.pinned.name, "?view=cluster"); }
    document.body.setAttribute("data-fleet-served", h.served ? "true" : "false");
    $("fleet-waiting").hidden = !!h.synced;
    $("fleet-waiting").textContent = h.served ? "Loading the hosted clusters…" : "Looking for hosted clusters…";
    $("source").textContent = h.served ? "reading hostedclusterupdatestatuses, all namespaces" + (h.synced ? "" : " (loading…)") : "";
    if (forced) { land("fleet", h.served); }
    if (!landed && h.landing) { land(h.landing, h.served); }
  }

  function land(where, served) {
    if (landed) { return; }
    landed = true;
    if (where === "fleet") {
      document.body.setAttribute("data-view", "fleet");
      document.title = "Hosted cluster updates";
      document.querySelector("header h1").textContent = "Hosted cluster updates";
      return;
    }
    if (served) { navLink("fleet", "All hosted clusters", "?view=fleet"); }
    startCluster("events");
  }

  function fleetCell() {
    var a = document.createElement("a");
    a.className = "hc";
    ["l", "p", "k", "m"].forEach(function (c) {
      var s = document.createElement("span");
      s.className = c;
      a.appendChild(s);
    });
    return a;
  }

  function fleetUncount(c) {
    if (!c) { return; }
    fleetCounts[c.c] = (fleetCounts[c.c] || 0) - 1;
    if (c.s) { fleetCounts._stalled--; }
    if (c.u) { fleetCounts._updating--; }
  }

  // fleetFill writes cell c into its element, changing only what differs.
  function fleetFill(e, c) {
    var old = e.c, el = e.el, key = c.ns + "/" + c.n;
    fleetUncount(old);
    fleetCounts[c.c] = (fleetCounts[c.c] || 0) + 1;
    if (c.s) { fleetCounts._stalled = (fleetCounts._stalled || 0) + 1; }
    if (c.u) { fleetCounts._updating = (fleetCounts._updating || 0) + 1; }
    e.c = c;
    if (!old) {
      el.href = "?hosted=" + encodeURIComponent(key);
      el.setAttribute("data-key", key);
      el.children[2].textContent = key;
    }
    var cls = FLEET_BY_ID[c.c] || FLEET_BY_ID.unknown;
    el.setAttribute("data-class", c.c);
    el.setAttribute("data-stalled", c.s ? "true" : "false");
    el.setAttribute("data-updating", c.u ? "true" : "false");
    el.setAttribute("data-completion", String(c.p));
    el.setAttribute("data-assessment", c.a);
    el.children[0].textContent = cls.letter;
    // Once the control plane is done, the figure is the nodes updated.
    el.children[1].textContent = c.c === "nodes" && c.nt ? c.nu + "/" + c.nt : c.p + "%";
    el.children[3].textContent = c.s ? "\u26a0" : "";
    var lines = [key, (c.f || "?") + " \u2192 " + (c.t || "?"), c.a + ", control plane " + c.p + "% complete" + (c.u ? ", updating" : "")];
    if (c.nt) { lines.push(c.nu + " of " + c.nt + " nodes updated"); }
    lines.push(c.h ? "worst health: " + c.h + ": " + c.hs + (c.hn > 1 ? " (" + c.hn + " insights)" : "") : "no health insight");
    if (c.s) { lines.push("STALLED: " + c.s); }
    el.title = lines.join("\n");
    el.setAttribute("aria-label", lines.join("; "));
  }

  function fleetSummary() {
    var sec = $("fleet-summary"), total = fleet.size;
    sec.setAttribute("data-total", String(total));
    sec.setAttribute("data-stalled", String(fleetCounts._stalled || 0));
    sec.setAttribute("data-updating", String(fleetCounts._updating || 0));
    $("fleet-title").textContent = total + " hosted cluster" + (total === 1 ? "" : "s") + ": " + (fleetCounts._updating || 0) +
      " updating, " + (fleetCounts._stalled || 0) + " stalled";
    var legend = $("fleet-legend");
    legend.textContent = "";
    FLEET.forEach(function (cls) {
      var li = document.createElement("li");
      li.setAttribute("data-class", cls.id);
      li.setAttribute("data-count", String(fleetCounts[cls.id] || 0));
      var sw = document.createElement("span");
      sw.className = "sw";
      sw.style.background = css.getPropertyValue("--fleet-" + cls.id).trim();
      li.append(sw, " " + cls.letter + " " + cls.label + ": " + (fleetCounts[cls.id] || 0));
      legend.appendChild(li);
    });
  }

  // ---- which page ----
  // ?hosted=NAMESPACE/NAME: that hosted cluster; ?view=standalone: the
  // standalone cluster; ?view=cluster: the cluster the server was started
  // on; ?view=fleet: the hosted clusters. Without, the fleet when the
  // server lists hosted clusters, else the cluster.
  var params = new URLSearchParams(location.search);
  var view = params.get("view");
  if (params.has("hosted")) {
    navLink("fleet", "All hosted clusters", "?view=fleet");
    startCluster("events?hosted=" + encodeURIComponent(params.get("hosted")));
  } else if (view === "standalone") {
    navLink("fleet", "All hosted clusters", "?view=fleet");
    startCluster("events?view=standalone");
  } else if (view === "cluster") {
    startCluster("events");
  } else {
    startFleet(view === "fleet");
  }
})();
