/* Lifeline: drawing frames (plain JS + SVG/canvas, nothing fetched).
 * LL.draw(env, element, staticPart, frame) draws one frame with the env's own visual (ed: bed
 * board; dispatch / dispatch_metro: city map; codered: Prakashnagar with hospitals and the 911
 * queue; pharmacy: stock vs par, expiry, POs, budget; evgrid / evgrid_team: stations and feeder
 * zones) or the generic view (text + numeric fields + tables) otherwise.
 * LL.showGrade(parent, score, components, final) labels the grade running or final.
 * LL.chart(canvas, series, cursor) draws line charts; LL.events(env, prev, cur, step) turns two
 * consecutive frames into event-log lines. */
"use strict";
const LL = (() => {
  const NS = "http://www.w3.org/2000/svg";
  function el(tag, attrs, parent, text) {
    const node = document.createElementNS(NS, tag);
    for (const k in attrs || {}) node.setAttribute(k, attrs[k]);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function h(tag, attrs, parent, text) {
    const node = document.createElement(tag);
    for (const k in attrs || {}) node.setAttribute(k, attrs[k]);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function fmt(v, d) {
    if (v === null || v === undefined) return "–";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(d === undefined ? 3 : d);
    return String(v);
  }
  const ESI = { 1: "#c62828", 2: "#ef6c00", 3: "#f9a825", 4: "#43a047", 5: "#1e88e5" };
  const STATUS = {
    idle: "#2e7d32", relocating: "#26a69a", en_route: "#d32f2f", on_scene: "#8e24aa",
    transporting: "#f57c00", at_hospital: "#6d4c41", returning: "#1e88e5",
    out_of_service: "#616161", aid_inbound: "#9e9d24", inactive: "#bdbdbd",
  };
  const CALLTYPE = {
    cardiac: "#c62828", stroke: "#6a1b9a", respiratory: "#0277bd", trauma: "#e65100",
    fire: "#ff6f00", minor: "#7cb342",
  };
  const ZONES = ["#e3f2fd", "#fce4ec", "#e8f5e9", "#fff8e1", "#ede7f6", "#e0f7fa", "#fbe9e7",
                 "#f1f8e9", "#f3e5f5", "#e8eaf6", "#fffde7", "#efebe9"];

  function svgRoot(container, w, hgt, key) {
    if (!container._svg || container._key !== key) {
      container.innerHTML = "";
      container._svg = el("svg", { viewBox: `0 0 ${w} ${hgt}`, "data-view": key }, container);
      container._key = key;
      container._static = null;
    }
    return container._svg;
  }

  /* ----- ed: the bed board --------------------------------------------------------------- */
  function bed(g, x, y, w, hh, ward, i, p) {
    const b = el("g", { class: "bed", "data-ward": ward, "data-bed": i,
                        "data-occupied": p ? "1" : "0" }, g);
    el("rect", { x, y, width: w, height: hh, rx: 4, fill: p ? ESI[p.esi] : "#eef1f4",
                 stroke: p && p.ready ? "#1b5e20" : "#c3cad3", "stroke-width": p && p.ready ? 3 : 1,
                 "fill-opacity": p ? 0.85 : 1 }, b);
    el("text", { x: x + 4, y: y + 12, "font-size": 10, fill: p ? "#fff" : "#8a96a3",
                 "font-weight": 600 }, b, `${ward === "icu" ? "I" : "G"}${i}` + (p ? ` ESI${p.esi}` : ""));
    if (!p) return;
    el("text", { x: x + 4, y: y + 24, "font-size": 9.5, fill: "#fff" }, b, p.condition);
    el("text", { x: x + 4, y: y + 36, "font-size": 9.5, fill: "#fff" }, b,
       `${p.hours_in_bed.toFixed(1)}h` + (p.ready ? " READY" : p.boarding ? " BOARDING" : "")
       + (p.vent ? " VENT" : ""));
    el("rect", { x: x + 4, y: y + hh - 7, width: (w - 8), height: 3, fill: "rgba(255,255,255,.4)" }, b);
    el("rect", { x: x + 4, y: y + hh - 7, width: (w - 8) * p.progress, height: 3, fill: "#fff" }, b);
    const t = el("title", {}, b);
    t.textContent = `patient #${p.pid}: triaged ESI${p.esi} (true ESI${p.truth.esi}), ${p.condition}` +
      `, ${p.hours_in_bed}h in bed, care ${Math.round(p.progress * 100)}%` +
      (p.truth.needs_icu ? ", needs ICU" : "") + (p.truth.needs_vent ? ", needs ventilator" : "");
  }

  function drawEd(container, st, f) {
    const W = 760, cols = 10, bw = 70, bh = 46, gap = 5;
    const gRows = Math.ceil(f.general.length / cols), iRows = Math.ceil(f.icu.length / cols);
    const wRows = Math.max(1, Math.ceil(Math.min(f.waiting.length, 40) / 8));
    const H = 40 + gRows * (bh + gap) + 30 + iRows * (bh + gap) + 40 + wRows * 26 + 30;
    const svg = svgRoot(container, W, H, "ed");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.innerHTML = "";
    const c = f.counters;
    el("text", { x: 8, y: 18, "font-size": 15, "font-weight": 700 }, svg,
       `ED ${f.clock}  ·  tick ${f.tick}/${f.horizon_ticks}`);
    el("text", { x: 300, y: 18, "font-size": 12 }, svg,
       `arrived ${c.patients} · treated ${c.treated} · deaths ${c.deaths} · LWBS ${c.lwbs} · early discharges ${c.early_discharges}`);
    let y = 30;
    el("text", { x: 8, y: y + 6, "font-size": 12, "font-weight": 600 }, svg,
       `General beds (${f.general.filter((p) => p).length}/${f.general.length} occupied)`);
    y += 12;
    const gg = el("g", { class: "ward", "data-ward": "general" }, svg);
    f.general.forEach((p, i) => bed(gg, 8 + (i % cols) * (bw + gap), y + Math.floor(i / cols) * (bh + gap), bw, bh, "general", i, p));
    y += gRows * (bh + gap) + 18;
    el("text", { x: 8, y: y, "font-size": 12, "font-weight": 600 }, svg,
       `ICU beds (${f.icu.filter((p) => p).length}/${f.icu.length}) · ventilators ${f.ventilators.in_use}/${f.ventilators.total} in use`);
    const vg = el("g", { class: "vents" }, svg);
    for (let v = 0; v < f.ventilators.total; v++) {
      el("circle", { class: "vent", cx: 470 + v * 18, cy: y - 4, r: 6,
                     fill: v < f.ventilators.in_use ? "#0277bd" : "#fff", stroke: "#0277bd" }, vg);
    }
    y += 6;
    const ig = el("g", { class: "ward", "data-ward": "icu" }, svg);
    f.icu.forEach((p, i) => bed(ig, 8 + (i % cols) * (bw + gap), y + Math.floor(i / cols) * (bh + gap), bw, bh, "icu", i, p));
    y += iRows * (bh + gap) + 22;
    el("text", { x: 8, y: y, "font-size": 12, "font-weight": 600 }, svg,
       `Waiting room: ${f.waiting.length} (first ${f.queue_slots} addressable by actions)`);
    y += 8;
    const wg = el("g", { class: "waiting" }, svg);
    f.waiting.slice(0, 40).forEach((p, k) => {
      const x = 8 + (k % 8) * 93, yy = y + Math.floor(k / 8) * 26;
      const g = el("g", { class: "waiter", "data-slot": p.slot === null ? "" : p.slot }, wg);
      el("rect", { x, y: yy, width: 89, height: 22, rx: 11, fill: ESI[p.esi], "fill-opacity": p.slot === null ? 0.35 : 0.9 }, g);
      el("text", { x: x + 7, y: yy + 15, "font-size": 10, fill: "#fff", "font-weight": 600 }, g,
         `${p.slot === null ? "·" : p.slot} ESI${p.esi} ${p.waited_h.toFixed(1)}h`);
      el("title", {}, g, `#${p.pid} ${p.condition}, waiting ${p.waited_h}h (true ESI${p.truth.esi})`);
    });
    if (f.waiting.length > 40) el("text", { x: 8, y: y + wRows * 26 + 12, "font-size": 11 }, svg, `… and ${f.waiting.length - 40} more`);
    const ly = H - 10;
    [1, 2, 3, 4, 5].forEach((e, k) => {
      el("circle", { cx: 14 + k * 70, cy: ly - 4, r: 5, fill: ESI[e] }, svg);
      el("text", { x: 22 + k * 70, y: ly, "font-size": 10.5 }, svg, `ESI ${e}`);
    });
    el("text", { x: 370, y: ly, "font-size": 10.5 }, svg, "green border = READY · bar = care progress · hover for details");
  }

  /* ----- dispatch: the city map ----------------------------------------------------------- */
  /* Labels that never overlap: each is tried at a few offsets and dropped (its tooltip stays)
   * when every one collides with a label already placed. */
  function labeller(boxes) {
    const hit = (b) => boxes.some((o) => b.x < o.x + o.width && o.x < b.x + b.width && b.y < o.y + o.height && o.y < b.y + b.height);
    return (parent, x, y, text, attrs, offsets) => {
      const t = el("text", Object.assign({ class: "maplabel", x, y, "paint-order": "stroke", stroke: "#fbfcfd", "stroke-width": 3 }, attrs), parent, text);
      for (const [dx, dy, anchor] of offsets || [[0, 0]]) {
        t.setAttribute("x", x + dx); t.setAttribute("y", y + dy);
        if (anchor) t.setAttribute("text-anchor", anchor);
        const b = t.getBBox();
        if (!hit(b)) { boxes.push({ x: b.x, y: b.y, width: b.width, height: b.height }); return t; }
      }
      t.remove();
      return null;
    };
  }
  const AROUND = [[12, 4, "start"], [-12, 4, "end"], [0, -12, "middle"], [0, 18, "middle"], [12, -10, "start"], [12, 16, "start"]];

  function drawDispatch(container, st, f) {
    const metro = st.nodes.length > 60;
    const W = metro ? 1400 : 760, H = metro ? 1000 : 600, M = 30, top = 34;
    const svg = svgRoot(container, W, H, metro ? "dispatch_metro" : "dispatch");
    const P = (n) => [M + st.nodes[n][0] * (W - 2 * M), top + st.nodes[n][1] * (H - top - 60)];
    if (container._static !== st) {
      svg.innerHTML = "";
      const sg = el("g", { class: "static" }, svg);
      container._boxes = [];
      if (metro) {  // zones as shaded hulls, not one disc per node
        st.zone_names.forEach((name, z) => {
          const pts = st.zone_of.map((zz, n) => (zz === z ? P(n) : null)).filter((p) => p);
          if (pts.length < 3) return;
          const hl = hull(pts.flatMap(([x, y]) => [[x - 8, y - 8], [x + 8, y - 8], [x - 8, y + 8], [x + 8, y + 8]]));
          el("path", { class: "zone", d: "M" + hl.map((p) => p.join(",")).join("L") + "Z", fill: ZONES[z % ZONES.length], "fill-opacity": 0.8, stroke: "#dfe4ea" }, sg);
        });
      } else {
        st.nodes.forEach((_, n) => {
          const [x, y] = P(n);
          el("circle", { cx: x, cy: y, r: 16, fill: ZONES[st.zone_of[n] % ZONES.length] }, sg);
        });
      }
      const bridges = new Set(st.bridges.map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`));
      st.edges.forEach(([a, b]) => {
        const [x1, y1] = P(a), [x2, y2] = P(b);
        const br = bridges.has(`${Math.min(a, b)}-${Math.max(a, b)}`);
        el("line", { x1, y1, x2, y2, stroke: br ? "#5c6bc0" : "#b0b8c1", "stroke-width": br ? 3 : metro ? 1 : 1.5 }, sg);
      });
      st.nodes.forEach((_, n) => { const [x, y] = P(n); el("circle", { cx: x, cy: y, r: metro ? 1.4 : 2, fill: "#8a96a3" }, sg); });
      st.stations.forEach((n) => {
        const [x, y] = P(n);
        el("rect", { class: "station", "data-node": n, x: x - 5, y: y - 5, width: 10, height: 10, fill: "#fff", stroke: "#37474f", "stroke-width": 1.5 }, sg);
      });
      // hospitals' names (static) first, then zone names at centroids where they fit
      const place = labeller(container._boxes);
      st.hospitals.forEach((hsp) => {
        const [x, y] = P(hsp.node);
        place(sg, x, y, `${hsp.name}`, { "font-size": metro ? 12 : 10, "font-weight": 700, fill: "#1b5e20" }, AROUND);
      });
      st.zone_names.forEach((name, z) => {
        const ns = st.zone_of.map((zz, n) => (zz === z ? n : -1)).filter((n) => n >= 0);
        if (!ns.length) return;
        const cx = ns.reduce((a, n) => a + P(n)[0], 0) / ns.length, cy = ns.reduce((a, n) => a + P(n)[1], 0) / ns.length;
        place(sg, cx, cy, name, { "font-size": metro ? 13 : 11, fill: "#7b8794", "text-anchor": "middle", "font-style": "italic" },
              [[0, 0], [0, -14], [0, 14], [-30, 0, "middle"], [30, 0, "middle"]]);
      });
      svg.appendChild(el("g", { class: "dynamic" }));
      container._static = st;
    }
    const dg = svg.querySelector("g.dynamic");
    dg.innerHTML = "";
    const place = labeller(container._boxes.slice());
    el("text", { x: 8, y: 20, "font-size": 15, "font-weight": 700 }, dg,
       `${st.city} ${f.clock}  ·  t=${f.t.toFixed(1)}/${st.shift_min} min  ·  traffic ×${f.traffic}`);
    const alerts = Object.keys(f.alerts || {});
    el("text", { x: 430, y: 20, "font-size": 12, fill: alerts.length ? "#b00020" : "#57606a", "font-weight": 600 }, dg,
       alerts.length ? "ALERT: " + alerts.map((k) => k.replace(/_/g, " ")).join(", ") : "no alerts");
    (f.closed_roads || []).forEach(([a, b]) => {
      const [x1, y1] = P(a), [x2, y2] = P(b);
      el("line", { class: "closed", x1, y1, x2, y2, stroke: "#d32f2f", "stroke-width": 4, "stroke-dasharray": "4 3" }, dg);
    });
    (f.slowed_roads || []).forEach(([a, b]) => {
      const [x1, y1] = P(a), [x2, y2] = P(b);
      el("line", { class: "slowed", x1, y1, x2, y2, stroke: "#ff9800", "stroke-width": 4 }, dg);
    });
    st.hospitals.forEach((hsp, k) => {
      const [x, y] = P(hsp.node), s = f.hospitals[k];
      const g = el("g", { class: "hospital", "data-hospital": k, "data-divert": s.divert ? "1" : "0" }, dg);
      el("rect", { x: x - 9, y: y - 9, width: 18, height: 18, rx: 3, fill: s.divert ? "#d32f2f" : "#2e7d32",
                   stroke: s.reported_divert ? "#000" : "#fff", "stroke-width": s.reported_divert ? 2.5 : 1 }, g);
      el("path", { d: `M${x - 5} ${y}h10M${x} ${y - 5}v10`, stroke: "#fff", "stroke-width": 3 }, g);
      place(g, x, y, `${s.free_beds}/${hsp.beds} free${s.divert ? " DIVERT" : ""}`, { "font-size": metro ? 11 : 10, fill: s.divert ? "#b00020" : "#263238" },
            [[12, 16, "start"], [-12, 16, "end"], [0, 24, "middle"], [12, 28, "start"], [0, -24, "middle"]]);
      el("title", {}, g, `${hsp.name}: ${s.free_beds}/${hsp.beds} EMS beds free` + (s.divert ? ", on diversion" : "") + (s.reported_divert ? " (reported)" : ""));
    });
    // calls (metro: calls within a few pixels of each other drawn as one counted cluster)
    const CELL = metro ? 18 : 0;
    const groups = [];
    (f.calls || []).forEach((c) => {
      const [x, y] = P(c.node);
      const g = CELL ? groups.find((q) => Math.abs(q.x - x) < CELL && Math.abs(q.y - y) < CELL) : null;
      if (g) g.calls.push(c); else groups.push({ x, y, calls: [c] });
    });
    groups.forEach(({ x, y, calls }) => {
      if (calls.length > 1) {
        const g = el("g", { class: "call-cluster", "data-count": calls.length }, dg);
        const worst = calls.reduce((a, c) => (c.truth.severity > a.truth.severity ? c : a), calls[0]);
        el("circle", { cx: x, cy: y, r: 9 + Math.min(8, calls.length), fill: CALLTYPE[worst.type] || "#000", "fill-opacity": 0.85, stroke: "#fff", "stroke-width": 2 }, g);
        el("text", { x, y: y + 4, "font-size": 11, "font-weight": 700, fill: "#fff", "text-anchor": "middle" }, g, String(calls.length));
        el("title", {}, g, calls.map((c) => `call #${c.id}${c.slot !== null && c.slot !== undefined ? ` [${c.slot}]` : ""}: ${c.type}, ${c.tone}, ${c.age_min} min, ${c.assigned}/${c.needed} units`).join("\n"));
        return;
      }
      const c = calls[0];
      const g = el("g", { class: "call", "data-call": c.id }, dg);
      el("circle", { cx: x, cy: y, r: 7 + (c.tone === "screaming" ? 4 : c.tone === "agitated" ? 2 : 0),
                     fill: "none", stroke: CALLTYPE[c.type] || "#000", "stroke-width": 2, "stroke-dasharray": c.assigned ? "" : "3 2" }, g);
      el("circle", { cx: x, cy: y, r: 5, fill: CALLTYPE[c.type] || "#000" }, g);
      if (c.slot !== null && c.slot !== undefined) {
        place(g, x, y, `[${c.slot}]`, { "font-size": 10, "font-weight": 700, fill: CALLTYPE[c.type] || "#000" }, [[-3, -11, "middle"], [12, 4, "start"], [-12, 4, "end"], [0, 20, "middle"]]);
      }
      el("title", {}, g, `call #${c.id}: reported ${c.type}, caller ${c.tone}, ${c.age_min} min old, ` +
         `${c.assigned}/${c.needed} units` + (c.verified !== null ? `, verified ${c.verified}` : "") +
         ` (truth: ${c.truth.kind}, ${c.truth.type}, severity ${c.truth.severity})`);
    });
    // units (metro: units at the same spot drawn as one counted cluster)
    const ugroups = [];
    (f.units || []).forEach((u) => {
      const [x1, y1] = P(u.from), [x2, y2] = P(u.to);
      const x = x1 + (x2 - x1) * u.frac, y = y1 + (y2 - y1) * u.frac;
      const g = metro ? ugroups.find((q) => Math.abs(q.x - x) < 8 && Math.abs(q.y - y) < 8) : null;
      if (g) g.units.push(u); else ugroups.push({ x, y, units: [u] });
    });
    ugroups.forEach(({ x, y, units }) => {
      if (units.length > 1) {
        const g = el("g", { class: "unit-cluster", "data-count": units.length }, dg);
        const col = STATUS[units[0].status];
        el("circle", { cx: x, cy: y, r: 8, fill: col, stroke: "#fff", "stroke-width": 2 }, g);
        el("text", { x, y: y + 3.5, "font-size": 9.5, "font-weight": 700, fill: "#fff", "text-anchor": "middle" }, g, `${units.length}`);
        el("title", {}, g, units.map((u) => `unit ${u.id} (${u.als ? "ALS" : "BLS"}): ${u.status}`).join("\n"));
        return;
      }
      const u = units[0];
      const g = el("g", { class: "unit", "data-unit": u.id, "data-status": u.status }, dg);
      el("circle", { cx: x, cy: y, r: 6, fill: u.als ? STATUS[u.status] : "#fff", stroke: STATUS[u.status], "stroke-width": 2.5 }, g);
      place(g, x, y, String(u.id), { "font-size": 9, fill: "#263238" }, [[7, -5, "start"], [-7, -5, "end"], [7, 12, "start"], [-7, 12, "end"]]);
      el("title", {}, g, `unit ${u.id} (${u.als ? "ALS" : "BLS"}): ${u.status} (last report: ${u.reported})` +
         (u.call >= 0 ? `, call #${u.call}` : "") + (u.hospital >= 0 ? `, hospital ${u.hospital}` : ""));
    });
    // legend
    let lx = 8;
    const ly = H - 28;
    Object.entries(STATUS).forEach(([k, c]) => {
      if (k === "inactive") return;
      el("circle", { cx: lx + 5, cy: ly, r: 5, fill: c }, dg);
      el("text", { x: lx + 13, y: ly + 4, "font-size": 10 }, dg, k.replace(/_/g, " "));
      lx += 20 + k.length * 5.6;
    });
    if (metro) el("text", { x: lx + 10, y: ly + 4, "font-size": 10 }, dg, "numbered disc = several units / calls at one spot (hover for the list)");
    lx = 8;
    Object.entries(CALLTYPE).forEach(([k, c]) => {
      el("circle", { cx: lx + 5, cy: ly + 18, r: 5, fill: c }, dg);
      el("text", { x: lx + 13, y: ly + 22, "font-size": 10 }, dg, "call: " + k);
      lx += 48 + k.length * 5.6;
    });
    el("text", { x: lx + 10, y: ly + 22, "font-size": 10 }, dg,
       `hollow unit = BLS · ■ station · open ${f.counters.open} · calls ${f.counters.calls} · coverage ${(100 * f.coverage).toFixed(0)}%`);
  }

  /* ----- codered: Prakashnagar map, hospitals' gauges, the 911 queue ------------------------- */
  const COND = { cardiac: "#c62828", stroke: "#6a1b9a", trauma: "#e65100", general: "#1565c0",
                 anxiety: "#78909c", gerd: "#8d6e63", panic: "#90a4ae", minor: "#7cb342" };
  const CR_UNIT = { available: "#2e7d32", en_route: "#d32f2f", on_scene: "#8e24aa", transporting: "#f57c00",
                    handover: "#6d4c41", returning: "#1e88e5", aid_inbound: "#9e9d24", inactive: "#bdbdbd" };
  const OR_COL = { free: "#2e7d32", elective: "#9aa7b6", preparing: "#f9a825", ready: "#00897b", surgery: "#c62828", failed: "#000" };
  const AT_SCENE = new Set(["waiting", "call", "unit_en_route", "on_scene", "callback_pending", "self_transport"]);
  function vitCol(v) { return v < 0.3 ? "#b71c1c" : v < 0.6 ? "#ef6c00" : "#2e7d32"; }
  function drawCodered(container, st, f) {
    const W = 1000, H = 660, MX = 20, MY = 44, MW = 580, MH = 470;
    const svg = svgRoot(container, W, H, "codered");
    svg.innerHTML = "";
    const xy = f.xy || f.nodes.map((_, n) => [((n * 37) % 100) / 100, ((n * 61) % 100) / 100]);
    const P = (n) => [MX + 20 + xy[n][0] * (MW - 40), MY + 14 + xy[n][1] * (MH - 40)];
    const pts = f.patients || [];
    const dead = pts.filter((p) => p.status === "dead").length, treated = pts.filter((p) => p.status === "treated").length;
    el("text", { x: 8, y: 20, "font-size": 16, "font-weight": 700 }, svg,
       `CODE RED Prakashnagar ${f.clock || ""} · t=${fmt(f.t, 0)}/${fmt(f.horizon, 0)} min`);
    el("text", { x: 470, y: 20, "font-size": 12.5 }, svg,
       `patients ${pts.length} · treated ${treated} · dead ${dead} · calls waiting ${(f.queue || []).length} · mutual aid left ${f.mutual_aid_left}`);
    el("text", { x: 8, y: 37, "font-size": 12, "font-weight": 600, fill: (f.alerts || []).length ? "#b00020" : "#57606a" }, svg,
       (f.alerts || []).length ? "ALERT: " + f.alerts.map((a) => a.replace(/_/g, " ")).join(" · ") : "no alerts");
    const map = el("g", { class: "map" }, svg);
    el("rect", { x: MX, y: MY, width: MW, height: MH, rx: 6, fill: "#f7f9fb", stroke: "#e3e7ec" }, map);
    f.roads.forEach((r) => {
      const [x1, y1] = P(r.a), [x2, y2] = P(r.b);
      const slow = r.factor > 1.05;
      el("line", { class: r.closed ? "road closed" : "road", x1, y1, x2, y2,
                   stroke: r.closed ? "#d32f2f" : slow ? "#ffb74d" : "#b0b8c1", "stroke-width": r.closed ? 5 : slow ? 4 : 3,
                   "stroke-dasharray": r.closed ? "6 4" : "" }, map);
      if (r.closed) el("text", { x: (x1 + x2) / 2 - 6, y: (y1 + y2) / 2 + 5, "font-size": 15, fill: "#d32f2f", "font-weight": 700 }, map, "✕");
      el("text", { x: (x1 + x2) / 2 + 4, y: (y1 + y2) / 2 - 4, "font-size": 9, fill: "#8a96a3" }, map,
         `${fmt(r.minutes * r.factor, 0)}′`);
    });
    const hospAt = {};
    f.hospitals.forEach((hs, k) => { hospAt[hs.node] = k; });
    f.nodes.forEach((name, n) => {
      const [x, y] = P(n);
      if (hospAt[n] !== undefined) {
        const hs = f.hospitals[hospAt[n]];
        const g = el("g", { class: "hospital", "data-hospital": hospAt[n], "data-divert": hs.diverted ? "1" : "0" }, map);
        el("rect", { x: x - 11, y: y - 11, width: 22, height: 22, rx: 4, fill: hs.diverted ? "#d32f2f" : "#2e7d32" }, g);
        el("path", { d: `M${x - 6} ${y}h12M${x} ${y - 6}v12`, stroke: "#fff", "stroke-width": 3.5 }, g);
        el("text", { x: x, y: y + 24, "font-size": 11, "font-weight": 700, "text-anchor": "middle", fill: "#1b5e20" }, g,
           hs.name + (hs.diverted ? " (DIVERT)" : ""));
      } else {
        el("circle", { cx: x, cy: y, r: 5, fill: "#fff", stroke: "#607080", "stroke-width": 1.5 }, map);
      }
    });
    const labels = el("g", { class: "labels" });
    // incident sites: patients still at the scene, grouped by node
    const bySite = {};
    pts.filter((p) => AT_SCENE.has(p.status)).forEach((p) => { (bySite[p.node] = bySite[p.node] || []).push(p); });
    Object.entries(bySite).forEach(([node, list]) => {
      const [x, y] = P(Number(node));
      const g = el("g", { class: "site", "data-node": node, "data-patients": list.length }, map);
      el("circle", { cx: x, cy: y, r: 16 + 3 * Math.min(list.length, 6), fill: "#ffebee", "fill-opacity": 0.6, stroke: "#e57373", "stroke-dasharray": "3 2" }, g);
      list.forEach((p, k) => {
        const a = (k / Math.max(1, list.length)) * 2 * Math.PI - Math.PI / 2, rr = list.length > 1 ? 14 : 0;
        const px = x + rr * Math.cos(a), py = y - 26 + rr * Math.sin(a) * 0.6;
        const pg = el("g", { class: "patient", "data-patient": p.index, "data-status": p.status }, g);
        const known = p.condition !== null && p.condition !== undefined;
        el("circle", { cx: px, cy: py, r: 7, fill: known ? COND[p.condition] || "#555" : "#9e9e9e",
                       stroke: known ? vitCol(p.vitals) : "#616161", "stroke-width": 2.5 }, pg);
        el("text", { x: px, y: py + 3.5, "font-size": 9, "text-anchor": "middle", fill: "#fff", "font-weight": 700 }, pg,
           known ? p.condition[0].toUpperCase() : "?");
        el("title", {}, pg, `patient [${p.index}] ${known ? p.condition : "911 call (not yet assessed)"}, ${p.status.replace(/_/g, " ")}` +
           (known ? `, vitals ${fmt(p.vitals, 2)}` : ""));
      });
    });
    f.nodes.forEach((name, n) => {
      if (hospAt[n] !== undefined) return;
      const [x, y] = P(n);
      el("text", { x: x, y: y + 17, "font-size": 10.5, "text-anchor": "middle", fill: "#37474f", "paint-order": "stroke",
                   stroke: "#f7f9fb", "stroke-width": 3 }, labels, name);
    });
    map.appendChild(labels);
    // ambulances on the roads, with their patient (parked ones stacked right of their place)
    const parked = {};
    (f.ambulances || []).forEach((u, k) => {
      if (u.status === "inactive") return;
      const mv = (f.moving || [])[k] || [u.node, u.node, 0];
      const [x1, y1] = P(mv[0]), [x2, y2] = P(mv[1]);
      let x = x1 + (x2 - x1) * mv[2], y = y1 + (y2 - y1) * mv[2];
      if (mv[0] === mv[1]) { const q = parked[mv[0]] = (parked[mv[0]] || 0) + 1; x += 4 + 22 * q; y -= 2; }
      const g = el("g", { class: "ambulance", "data-unit": k, "data-status": u.status }, map);
      if (u.dest !== u.node && u.status !== "available") {
        const [dx, dy] = P(u.dest);
        el("line", { x1: x, y1: y, x2: dx, y2: dy, stroke: CR_UNIT[u.status] || "#333", "stroke-width": 1, "stroke-dasharray": "2 3", opacity: 0.7 }, g);
      }
      el("rect", { x: x - 10, y: y - 7, width: 20, height: 14, rx: 3, fill: u.als ? CR_UNIT[u.status] || "#333" : "#fff",
                   stroke: CR_UNIT[u.status] || "#333", "stroke-width": 2 }, g);
      el("text", { x: x - (u.patient >= 0 ? 7 : 0), y: y + 4, "font-size": 9.5, "font-weight": 700, "text-anchor": u.patient >= 0 ? "start" : "middle",
                   fill: u.als ? "#fff" : "#263238" }, g, String(k));
      const carried = u.patient >= 0 ? pts.find((p) => p.index === u.patient) : null;
      if (carried && (u.status === "transporting" || u.status === "on_scene" || u.status === "handover")) {
        el("circle", { class: "carried", cx: x + 5, cy: y, r: 4, fill: COND[carried.condition] || "#9e9e9e", stroke: "#fff" }, g);
      }
      el("title", {}, g, `ambulance ${k} (${u.als ? "ALS" : "BLS"}${u.mutual_aid ? ", mutual aid" : ""}): ${u.status.replace(/_/g, " ")}` +
         ` ${f.nodes[u.node]}${u.dest !== u.node ? " → " + f.nodes[u.dest] : ""}` + (u.patient >= 0 ? `, patient [${u.patient}]` : ""));
    });
    // hospitals: ORs, ICU, specialists, blood by type
    const HX = 615, HW = 375, HH = 150;
    f.hospitals.forEach((hs, k) => {
      const ex = (f.hospital_extra || [])[k] || {};
      const y0 = MY + k * (HH + 8);
      const g = el("g", { class: "hcard", "data-hospital": k }, svg);
      el("rect", { x: HX, y: y0, width: HW, height: HH, rx: 6, fill: hs.diverted ? "#fff5f5" : "#fff", stroke: hs.diverted ? "#d32f2f" : "#d5dbe3" }, g);
      const here = pts.filter((p) => p.hospital === k && (p.status === "awaiting_treatment" || p.status === "stabilised" || p.status === "handover"));
      el("text", { x: HX + 8, y: y0 + 16, "font-size": 12.5, "font-weight": 700 }, g,
         `${hs.name}${hs.diverted ? " — ON DIVERSION" : ""}`);
      el("text", { x: HX + HW - 8, y: y0 + 16, "font-size": 11, "text-anchor": "end", fill: "#455a64" }, g,
         `${here.length} waiting for care · ${pts.filter((p) => p.hospital === k && p.status === "treated").length} treated`);
      // ORs
      el("text", { x: HX + 8, y: y0 + 36, "font-size": 11 }, g, "ORs");
      (hs.ors || []).forEach((o, j) => {
        el("rect", { class: "or", "data-state": o, x: HX + 40 + j * 62, y: y0 + 25, width: 58, height: 15, rx: 3, fill: OR_COL[o] || "#999" }, g);
        el("text", { x: HX + 69 + j * 62, y: y0 + 36, "font-size": 9.5, fill: "#fff", "text-anchor": "middle" }, g, o);
      });
      if (!(hs.ors || []).length) el("text", { x: HX + 40, y: y0 + 36, "font-size": 11, fill: "#8a96a3" }, g, "none (stabilises only)");
      // ICU
      const icuT = ex.icu_beds || Math.max(hs.icu_free, 1);
      el("text", { x: HX + 240, y: y0 + 36, "font-size": 11 }, g, "ICU");
      for (let b = 0; b < icuT; b++) {
        el("rect", { class: "icu", "data-free": b < hs.icu_free ? "1" : "0", x: HX + 268 + b * 16, y: y0 + 26, width: 13, height: 13, rx: 2,
                     fill: b < hs.icu_free ? "#fff" : "#0277bd", stroke: "#0277bd" }, g);
      }
      // specialists
      let sx = HX + 8;
      const spec = ex.specialists || {};
      Object.entries(spec).forEach(([name, [present, paged, oncall]]) => {
        const label = `${name.replace(/_/g, " ")}:`;
        el("text", { x: sx, y: y0 + 58, "font-size": 10.5 }, g, label);
        sx += label.length * 5.6 + 4;
        [["#2e7d32", present], ["#f9a825", paged], ["#cfd8dc", oncall]].forEach(([col, n]) => {
          for (let q = 0; q < n; q++) { el("circle", { class: "specialist", cx: sx + 5, cy: y0 + 54, r: 5, fill: col, stroke: "#607d8b" }, g); sx += 12; }
        });
        sx += 10;
      });
      if (!Object.keys(spec).length) el("text", { x: sx, y: y0 + 58, "font-size": 10.5, fill: "#8a96a3" }, g, "no specialists");
      // blood by type: gauges
      const full = ex.blood_full || [];
      el("text", { x: HX + 8, y: y0 + 82, "font-size": 11 }, g, "blood");
      Object.entries(hs.blood || {}).forEach(([bt, n], j) => {
        const gx = HX + 48 + j * 40, gy = y0 + 70, gh = 58, cap = Math.max(full[j] || 0, n, 1);
        const frac = Math.min(1, n / cap), low = n <= Math.max(1, 0.25 * cap);
        el("rect", { x: gx, y: gy, width: 16, height: gh, fill: "#f1f4f7", stroke: "#cfd8dc" }, g);
        el("rect", { class: "blood", "data-type": bt, "data-units": n, x: gx, y: gy + gh * (1 - frac), width: 16, height: gh * frac,
                     fill: low ? "#d32f2f" : "#ad1457" }, g);
        el("text", { x: gx + 8, y: gy + gh + 12, "font-size": 9.5, "text-anchor": "middle" }, g, bt);
        el("text", { x: gx + 19, y: gy + 10, "font-size": 9.5, fill: low ? "#d32f2f" : "#333" }, g, String(n));
      });
    });
    // the 911 queue
    const QY = MY + MH + 16;
    el("text", { x: MX, y: QY + 12, "font-size": 12, "font-weight": 600 }, svg, `911 queue (${(f.queue || []).length}):`);
    const qg = el("g", { class: "queue" }, svg);
    (f.queue || []).slice(0, 12).forEach((c, k) => {
      const x = MX + 110 + k * 72;
      const g = el("g", { class: "qcall", "data-patient": c.index }, qg);
      el("rect", { x, y: QY, width: 68, height: 34, rx: 5, fill: c.escalated ? "#ffcdd2" : "#eceff1", stroke: c.escalated ? "#c62828" : "#90a4ae" }, g);
      el("text", { x: x + 4, y: QY + 13, "font-size": 9.5, "font-weight": 700 }, g, `[${c.index}] ${fmt(c.minutes, 0)} min`);
      el("text", { x: x + 4, y: QY + 27, "font-size": 9 }, g, (c.category || "?").replace(/_/g, " ").slice(0, 13));
      el("title", {}, g, `911 call [${c.index}] at ${f.nodes[c.node]}: "${c.category}", ${c.minutes} min` + (c.escalated ? ", ESCALATED" : ""));
    });
    if (!(f.queue || []).length) el("text", { x: MX + 110, y: QY + 12, "font-size": 11, fill: "#8a96a3" }, svg, "empty");
    // legend
    const ly = H - 40;
    let lx = 8;
    Object.entries(COND).slice(0, 5).forEach(([k, c]) => {
      el("circle", { cx: lx + 5, cy: ly, r: 5, fill: c }, svg); el("text", { x: lx + 13, y: ly + 4, "font-size": 10 }, svg, k); lx += 22 + k.length * 6;
    });
    el("circle", { cx: lx + 5, cy: ly, r: 5, fill: "#9e9e9e" }, svg); el("text", { x: lx + 13, y: ly + 4, "font-size": 10 }, svg, "? not yet assessed"); lx += 120;
    el("text", { x: lx, y: ly + 4, "font-size": 10 }, svg, "ring = vitals (green ≥0.6, orange, red <0.3) · dashed red road = closed · orange = slowed");
    lx = 8;
    Object.entries(CR_UNIT).forEach(([k, c]) => {
      if (k === "inactive") return;
      el("rect", { x: lx, y: ly + 12, width: 12, height: 9, rx: 2, fill: c }, svg);
      el("text", { x: lx + 16, y: ly + 21, "font-size": 10 }, svg, k.replace(/_/g, " ")); lx += 26 + k.length * 5.6;
    });
    el("text", { x: lx, y: ly + 21, "font-size": 10 }, svg, "hollow = BLS · dot in ambulance = its patient · blood gauge full = stock at 08:00");
  }


  /* ----- pharmacy: stock against par, expiry, POs, budget, requests vs approved, events ------- */
  const PO_COL = { held: "#f9a825", approved: "#1f6feb", open: "#2e7d32", received: "#9aa7b6", cancelled: "#d32f2f" };
  function stockCol(r) { return r < 0.25 ? "#c62828" : r < 0.6 ? "#ef6c00" : r < 1.0 ? "#f9a825" : "#2e7d32"; }
  function money(v) { return "$" + Math.round(v).toLocaleString("en-US"); }
  function drawPharmacy(container, st, f) {
    const W = 1000, H = 480;
    const svg = svgRoot(container, W, H, "pharmacy");
    svg.innerHTML = "";
    const skus = Object.keys(f.central || {}), wards = Object.keys(f.wards || {});
    const par = f.par || { central: {}, wards: {} };
    el("text", { x: 8, y: 20, "font-size": 16, "font-weight": 700 }, svg,
       `MedChain central pharmacy · round ${f.round} · day ${f.day === undefined ? "–" : f.day}${f.days ? "/" + f.days : ""}`);
    // budget
    const total = f.budget || 0, left = f.available === undefined ? f.budget : f.available;
    const bx = 470, bw = 520;
    const bg = el("g", { class: "budget", "data-left": left }, svg);
    el("rect", { x: bx, y: 8, width: bw, height: 16, rx: 3, fill: "#e3e7ec" }, bg);
    el("rect", { x: bx, y: 8, width: total > 0 ? bw * Math.max(0, left) / total : 0, height: 16, rx: 3, fill: left < 0.15 * total ? "#c62828" : "#1f6feb" }, bg);
    el("text", { x: bx + 6, y: 20, "font-size": 11, fill: "#111", "font-weight": 600, "paint-order": "stroke", stroke: "#fff", "stroke-width": 3 }, bg,
       `budget left ${money(left)} of ${money(total)} (spent ${money(f.spent || 0)})`);
    // stock heat map: rows = products, columns = central + wards
    const GX = 8, GY = 50, RW = 112, CW = 92, RH = 24;
    const cols = ["CENTRAL", ...wards];
    el("text", { x: GX, y: GY - 10, "font-size": 12.5, "font-weight": 700 }, svg, "Stock on hand / par");
    el("text", { x: GX + 160, y: GY - 10, "font-size": 10, fill: "#57606a" }, svg, "red < 25 % · orange < 60 % · yellow < 100 % · | = par");
    cols.forEach((c, j) => el("text", { x: GX + RW + j * CW + CW / 2, y: GY + 10, "font-size": 11, "font-weight": 600, "text-anchor": "middle" }, svg,
                               c.replace("ward_", "").toUpperCase()));
    const grid = el("g", { class: "stock" }, svg);
    skus.forEach((sku, i) => {
      const y = GY + 16 + i * RH;
      el("text", { x: GX, y: y + 15, "font-size": 11 }, grid, sku);
      cols.forEach((c, j) => {
        const qty = j === 0 ? f.central[sku] : (f.wards[c] || {})[sku];
        const p = j === 0 ? par.central[sku] : (par.wards[c] || {})[sku];
        const x = GX + RW + j * CW;
        const cell = el("g", { class: "cell", "data-sku": sku, "data-loc": c }, grid);
        if (!p) { el("rect", { x: x + 2, y: y + 2, width: CW - 4, height: RH - 4, fill: "#f5f6f8" }, cell); el("text", { x: x + CW / 2, y: y + 15, "font-size": 9.5, fill: "#aab", "text-anchor": "middle" }, cell, "not stocked"); return; }
        const r = (qty || 0) / p;
        el("rect", { x: x + 2, y: y + 2, width: CW - 4, height: RH - 4, fill: "#f1f4f7", stroke: "#dde3ea" }, cell);
        el("rect", { class: "level", "data-ratio": r.toFixed(3), x: x + 2, y: y + 2, width: (CW - 4) * Math.min(1, r / 1.5), height: RH - 4, fill: stockCol(r), "fill-opacity": 0.85 }, cell);
        el("line", { x1: x + 2 + (CW - 4) / 1.5, x2: x + 2 + (CW - 4) / 1.5, y1: y, y2: y + RH, stroke: "#263238", "stroke-width": 1.5 }, cell);
        el("text", { x: x + 5, y: y + 15, "font-size": 10, fill: "#111", "font-weight": 600 }, cell, `${fmt(qty || 0, 0)}/${fmt(p, 0)}`);
        el("title", {}, cell, `${sku} at ${c}: ${fmt(qty || 0, 1)} on hand, par ${fmt(p, 1)} (${Math.round(100 * r)} %)`);
      });
    });
    // requests vs approved (this round)
    const RX = GX + RW + cols.length * CW + 24, RWW = W - RX - 8;
    el("text", { x: RX, y: GY - 10, "font-size": 12.5, "font-weight": 700 }, svg, "This round: requested (grey) vs approved (blue)");
    const req = f.requests || [], plan = f.plan || [];
    let mx = 1;
    req.forEach((row, w) => row.forEach((v, k) => { mx = Math.max(mx, v, (plan[w] || [])[k] || 0); }));
    wards.forEach((wd, w) => el("text", { x: RX + 60 + w * ((RWW - 60) / wards.length), y: GY + 10, "font-size": 11, "font-weight": 600 }, svg, wd.replace("ward_", "").toUpperCase()));
    const rg = el("g", { class: "requests" }, svg);
    skus.forEach((sku, k) => {
      const y = GY + 16 + k * RH;
      el("text", { x: RX, y: y + 15, "font-size": 9.5, fill: "#57606a" }, rg, sku.slice(0, 10));
      wards.forEach((wd, w) => {
        const x = RX + 60 + w * ((RWW - 60) / wards.length), bwid = (RWW - 60) / wards.length - 10;
        const a = (req[w] || [])[k] || 0, b = (plan[w] || [])[k] || 0;
        const g = el("g", { class: "req", "data-ward": wd, "data-sku": sku }, rg);
        el("rect", { x, y: y + 3, width: bwid * a / mx, height: 8, fill: "#9aa7b6" }, g);
        el("rect", { class: "approved", x, y: y + 12, width: bwid * b / mx, height: 8, fill: b + 1e-9 < a ? "#1f6feb" : "#0b5394" }, g);
        if (a || b) el("text", { x: x + Math.max(bwid * Math.max(a, b) / mx, 0) + 2, y: y + 16, "font-size": 8.5, fill: "#333" }, g, `${fmt(a, 0)}→${fmt(b, 0)}`);
      });
    });
    // lots by days to expiry (central)
    const LY = GY + 16 + skus.length * RH + 26, LX = GX + RW, LW = 420, MAXD = 30;
    el("text", { x: GX, y: LY - 8, "font-size": 12.5, "font-weight": 700 }, svg, "Central lots by days to expiry");
    const lg = el("g", { class: "lots" }, svg);
    const lotRows = Object.entries(f.lots || {});
    for (let d = 0; d <= MAXD; d += 5) {
      const x = LX + (d / MAXD) * LW;
      el("line", { x1: x, x2: x, y1: LY, y2: LY + lotRows.length * 20, stroke: "#eceff1" }, lg);
      el("text", { x, y: LY + lotRows.length * 20 + 11, "font-size": 9, "text-anchor": "middle", fill: "#8a96a3" }, lg, d === MAXD ? `${d}+ d` : `${d}`);
    }
    el("rect", { x: LX, y: LY, width: (3 / MAXD) * LW, height: lotRows.length * 20, fill: "#ffebee", "fill-opacity": 0.7 }, lg);
    lotRows.forEach(([sku, lots], i) => {
      const y = LY + i * 20 + 10;
      el("text", { x: GX, y: y + 4, "font-size": 10.5 }, lg, sku);
      lots.forEach(([days, qty]) => {
        const x = LX + (Math.min(days, MAXD) / MAXD) * LW;
        const g = el("g", { class: "lot", "data-sku": sku, "data-days": days }, lg);
        el("circle", { cx: x, cy: y, r: Math.min(9, 2.5 + Math.sqrt(qty) / 2), fill: days <= 3 ? "#c62828" : days <= 7 ? "#ef6c00" : "#00897b", "fill-opacity": 0.8 }, g);
        el("title", {}, g, `${sku}: ${fmt(qty, 1)} units, ${days} days left`);
      });
    });
    // open POs on a timeline (days)
    const PX = LX + LW + 60, PW = W - PX - 10, days = f.days || 16;
    el("text", { x: PX, y: LY - 8, "font-size": 12.5, "font-weight": 700 }, svg, "Purchase orders (order day → ETA)");
    const pg = el("g", { class: "pos" }, svg);
    const DX = (d) => PX + (Math.max(0, Math.min(days + 2, d)) / (days + 2)) * PW;
    el("line", { x1: DX(f.day || 0), x2: DX(f.day || 0), y1: LY, y2: LY + 150, stroke: "#000", "stroke-dasharray": "3 2" }, pg);
    el("text", { x: DX(f.day || 0) + 3, y: LY + 8, "font-size": 9 }, pg, "today");
    const pos = [...(f.purchase_orders || []).filter((po) => po.status !== "cancelled" && po.status !== "received"),
                 ...(f.purchase_orders || []).filter((po) => po.status === "received").reverse()].slice(0, 12);
    pos.forEach((po, k) => {
      const y = LY + 12 + k * 12, x0 = DX(po.order_day === undefined || po.order_day < 0 ? f.day || 0 : po.order_day), x1 = DX(po.eta_day);
      const g = el("g", { class: "po", "data-status": po.status }, pg);
      el("rect", { x: x0, y, width: Math.max(3, x1 - x0), height: 9, rx: 2, fill: PO_COL[po.status] || "#555", "fill-opacity": po.status === "received" ? 0.5 : 0.9 }, g);
      el("text", { x: Math.max(x0, x1) + 3, y: y + 8, "font-size": 8.5 }, g, `${po.id} ${po.sku} ×${fmt(po.qty, 0)} ${po.status}${po.expedite ? " (expedited)" : ""}`);
    });
    if (!pos.length) el("text", { x: PX, y: LY + 24, "font-size": 11, fill: "#8a96a3" }, pg, "no purchase orders yet");
    // events and the last reply
    const EY = Math.max(LY + lotRows.length * 20 + 30, LY + 12 + pos.length * 12 + 16);
    el("text", { x: GX, y: EY, "font-size": 12.5, "font-weight": 700 }, svg, "Events");
    const eg = el("g", { class: "events" }, svg);
    (f.events || []).slice(-5).forEach((e, k) => {
      const active = /\[active\]/.test(e);
      el("text", { class: "event", x: GX + 55, y: EY + k * 15, "font-size": 11, fill: active ? "#b00020" : /\[upcoming\]/.test(e) ? "#9a6700" : "#57606a", "font-weight": active ? 700 : 400 }, eg, e);
    });
    if (!(f.events || []).length) el("text", { x: GX + 55, y: EY, "font-size": 11, fill: "#8a96a3" }, eg, "none published");
    svg.setAttribute("viewBox", `0 0 ${W} ${Math.max(H, EY + 15 * Math.max(1, Math.min(5, (f.events || []).length)) + 4)}`);
  }


  /* ----- evgrid: stations by occupancy and queue, zones by feeder loading and heat ----------- */
  function ramp(r) {  // 0 → green, 0.7 → yellow, 1 → red, > 1 → dark red
    if (r >= 1) return r >= 1.1 ? "#7f0000" : "#c62828";
    const stops = [[0, [46, 125, 50]], [0.7, [249, 168, 37]], [1, [198, 40, 40]]];
    let k = 0; while (k < stops.length - 2 && r > stops[k + 1][0]) k++;
    const [a, ca] = stops[k], [b, cb] = stops[k + 1], t = Math.max(0, Math.min(1, (r - a) / (b - a)));
    return `rgb(${ca.map((c, i) => Math.round(c + (cb[i] - c) * t)).join(",")})`;
  }
  function hull(points) {  // convex hull (monotone chain) of [x, y] points
    const p = points.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    if (p.length < 3) return p;
    const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    const lo = [], up = [];
    p.forEach((q) => { while (lo.length >= 2 && cross(lo[lo.length - 2], lo[lo.length - 1], q) <= 0) lo.pop(); lo.push(q); });
    p.slice().reverse().forEach((q) => { while (up.length >= 2 && cross(up[up.length - 2], up[up.length - 1], q) <= 0) up.pop(); up.push(q); });
    return lo.slice(0, -1).concat(up.slice(0, -1));
  }
  function drawEvgrid(container, st, f) {
    const W = 1000, H = 620, MX = 10, MY = 44, MW = 600, MH = 520;
    const svg = svgRoot(container, W, H, "evgrid");
    svg.innerHTML = "";
    const sts = f.stations || [];
    const nodes = sts.map((x) => [x.lat, x.lng]).concat(f.airport ? [[f.airport.lat, f.airport.lng]] : []);
    const lats = nodes.map((n) => n[0]), lngs = nodes.map((n) => n[1]);
    const la0 = Math.min(...lats), la1 = Math.max(...lats), ln0 = Math.min(...lngs), ln1 = Math.max(...lngs);
    const kx = Math.cos(((la0 + la1) / 2) * Math.PI / 180), span = Math.max((ln1 - ln0) * kx, la1 - la0, 1e-9);
    const sc = Math.min(MW, MH) - 60;
    const P = (lat, lng) => [MX + 30 + ((lng - ln0) * kx / span) * sc + (MW - 60 - sc * (ln1 - ln0) * kx / span) / 2,
                             MY + 30 + ((la1 - lat) / span) * sc];
    const NP = (n) => P(nodes[n][0], nodes[n][1]);
    const hh = Math.floor(f.hour), mm = Math.round((f.hour - hh) * 60) % 60;
    const charging = sts.reduce((a, x) => a + x.charging, 0), queued = sts.reduce((a, x) => a + x.queue, 0),
          enroute = sts.reduce((a, x) => a + x.en_route, 0);
    el("text", { x: 8, y: 20, "font-size": 16, "font-weight": 700 }, svg,
       `EV grid Bengaluru ${String(hh).padStart(2, "0")}:${String(mm).padStart(2, "0")} · ${fmt(f.ambient_c, 1)} °C`);
    el("text", { x: 330, y: 20, "font-size": 12.5 }, svg,
       `our EVs: charging ${charging} · queued ${queued} · driving ${enroute} · renewable ${Math.round(100 * f.renewable_share)} %` +
       (f.operator ? ` · operator: ${f.operator.blacklisted.length} blacklisted, ${f.operator.violations} violations` : ""));
    const zs = f.zones || [];
    const tripped = zs.filter((z) => z.tripped).map((z) => z.name);
    el("text", { x: 8, y: 37, "font-size": 12, "font-weight": 600, fill: tripped.length || (f.events || []).length ? "#b00020" : "#57606a" }, svg,
       (tripped.length ? `TRIPPED: ${tripped.join(", ")} · ` : "") + ((f.events || []).slice(-2).join(" · ") || "no events this tick"));
    const map = el("g", { class: "map" }, svg);
    el("rect", { x: MX, y: MY, width: MW, height: MH, rx: 6, fill: "#f7f9fb", stroke: "#e3e7ec" }, map);
    // zones: hull of their stations, shaded by feeder loading (labels on top, drawn last)
    const zoneLabels = [];
    zs.forEach((z, zi) => {
      const pts = sts.filter((x) => x.zone === zi).map((x) => P(x.lat, x.lng));
      if (!pts.length) return;
      const cx = pts.reduce((a, p) => a + p[0], 0) / pts.length, cy = pts.reduce((a, p) => a + p[1], 0) / pts.length;
      const grown = pts.flatMap(([x, y]) => [[x - 22, y - 22], [x + 22, y - 22], [x - 22, y + 22], [x + 22, y + 22]]);
      const hl = hull(grown), load = z.limit_kw > 0 ? z.load_kw / (z.limit_kw * (z.derate || 1)) : 0;
      const g = el("g", { class: "zone", "data-zone": z.name, "data-loading": load.toFixed(3) }, map);
      el("path", { d: "M" + hl.map((p) => p.join(",")).join("L") + "Z", fill: ramp(load), "fill-opacity": 0.22,
                   stroke: z.tripped ? "#000" : ramp(load), "stroke-width": z.tripped ? 3 : 1.5, "stroke-dasharray": z.tripped ? "6 3" : "" }, g);
      const top = hl.reduce((a, p) => (p[1] < a[1] ? p : a), hl[0]);
      zoneLabels.push([top[0], top[1] - 4, `${z.name} ${Math.round(100 * load)} %`, ramp(load)]);
    });
    (f.roads || []).forEach(([a, b]) => {
      const [x1, y1] = NP(a), [x2, y2] = NP(b);
      el("line", { class: "road", x1, y1, x2, y2, stroke: "#cfd8dc", "stroke-width": 1.2 }, map);
    });
    // EVs driving to a station
    const drv = (f.evs || []).filter((e) => e.status === "driving" && e.station >= 0);
    drv.slice(0, 80).forEach((e) => {
      const [x1, y1] = NP(Math.min(e.origin, nodes.length - 1)), [x2, y2] = NP(e.station);
      const g = el("g", { class: "ev-route", "data-ev": e.id }, map);
      el("line", { x1, y1, x2, y2, stroke: "#1f6feb", "stroke-width": 1.4, "stroke-dasharray": "4 3", opacity: 0.8 }, g);
      el("circle", { cx: x1 + (x2 - x1) * 0.35, cy: y1 + (y2 - y1) * 0.35, r: 3.5, fill: "#1f6feb" }, g);
      el("title", {}, g, `EV ${e.id} (${e.persona}, ${Math.round(100 * e.soc)} % charged) driving to ${sts[e.station].name}`);
    });
    if (f.airport) {
      const [ax, ay] = P(f.airport.lat, f.airport.lng);
      el("text", { x: ax, y: ay + 5, "font-size": 15, "text-anchor": "middle" }, map, "✈");
    }
    // stations: fill = occupancy, badge = our queue
    const placed = [];
    const sg = el("g", { class: "stations" }, map);
    sts.forEach((x, j) => {
      const [cx, cy] = P(x.lat, x.lng), occ = (x.busy_other + x.charging) / Math.max(1, x.slots);
      const g = el("g", { class: "station", "data-station": x.id, "data-queue": x.queue, "data-out": x.out ? "1" : "0" }, sg);
      const r = 6 + Math.sqrt(x.slots) * 1.6;
      el("circle", { cx, cy, r, fill: x.out ? "#9e9e9e" : ramp(occ), stroke: x.type === "ultra" ? "#0d47a1" : "#fff", "stroke-width": x.type === "ultra" ? 2.5 : 1.5 }, g);
      if (x.out) el("text", { x: cx, y: cy + 5, "font-size": 13, "text-anchor": "middle", fill: "#fff", "font-weight": 700 }, g, "✕");
      if (x.charging) el("text", { x: cx, y: cy + 3.5, "font-size": 9, "text-anchor": "middle", fill: "#fff", "font-weight": 700 }, g, String(x.charging));
      if (x.queue > 0) {
        el("rect", { class: "queue-badge", x: cx + r - 3, y: cy - r - 9, width: 10 + 6 * String(x.queue).length, height: 13, rx: 6, fill: "#b00020" }, g);
        el("text", { x: cx + r + 2, y: cy - r + 1, "font-size": 9.5, fill: "#fff", "font-weight": 700 }, g, `${x.queue}`);
      }
      // label unless it would collide with one already placed
      const lx = cx + r + 3, ly = cy + 4;
      const t = el("text", { class: "label", x: lx, y: ly, "font-size": 9.5, fill: "#263238", "paint-order": "stroke", stroke: "#f7f9fb", "stroke-width": 3 }, g, x.name);
      const lw = (t.getComputedTextLength ? t.getComputedTextLength() : 0) || x.name.length * 6;
      if (placed.some(([px, py, pw]) => lx - 1 < px + pw && px < lx + lw + 1 && Math.abs(ly - py) < 12)) t.remove();
      else placed.push([lx, ly, lw]);
      if (f.operator && f.operator.blacklisted.includes(j)) {
        el("circle", { class: "blacklisted", cx, cy, r: r + 3, fill: "none", stroke: "#000", "stroke-width": 2 }, g);
        el("line", { x1: cx - r, y1: cy + r, x2: cx + r, y2: cy - r, stroke: "#000", "stroke-width": 2 }, g);
      }
      el("title", {}, g, `${x.name} (${x.id}, ${x.type}, ${x.slots} slots, zone ${zs[x.zone] ? zs[x.zone].name : x.zone}): ` +
         `others ${x.busy_other} · ours charging ${x.charging} · queue ${x.queue} · driving here ${x.en_route} · ₹${fmt(x.price, 2)}/kWh` + (x.out ? " · OUT OF SERVICE" : ""));
    });
    zoneLabels.forEach(([x, y, text, col]) => el("text", { class: "zone-label", x, y, "font-size": 12, "font-weight": 700, "text-anchor": "middle", fill: col,
                                                            "paint-order": "stroke", stroke: "#fff", "stroke-width": 3 }, map, text));
    // zone panel: feeder loading and transformer hot-spot temperature
    const ZX = 625, ZW = 365;
    el("text", { x: ZX, y: MY + 12, "font-size": 12.5, "font-weight": 700 }, svg, "Feeders: load / limit · transformer hot-spot");
    const lim = f.hotspot_limit_c || 120;
    zs.forEach((z, zi) => {
      const y = MY + 26 + zi * 58, load = z.limit_kw > 0 ? z.load_kw / (z.limit_kw * (z.derate || 1)) : 0;
      const g = el("g", { class: "feeder", "data-zone": z.name, "data-tripped": z.tripped ? "1" : "0" }, svg);
      el("text", { x: ZX, y: y + 11, "font-size": 11.5, "font-weight": 600 }, g, z.name + (z.tripped ? " — TRIPPED" : "") + (z.derate < 1 ? ` (derated ×${fmt(z.derate, 2)})` : ""));
      el("rect", { x: ZX, y: y + 16, width: ZW - 60, height: 13, fill: "#eceff1" }, g);
      el("rect", { class: "load", x: ZX, y: y + 16, width: (ZW - 60) * Math.min(1.2, load) / 1.2, height: 13, fill: ramp(load) }, g);
      el("rect", { x: ZX, y: y + 16, width: (ZW - 60) * Math.min(1.2, z.ev_kw / (z.limit_kw * (z.derate || 1))) / 1.2, height: 4, fill: "#1f6feb" }, g);
      el("line", { x1: ZX + (ZW - 60) / 1.2, x2: ZX + (ZW - 60) / 1.2, y1: y + 13, y2: y + 32, stroke: "#000", "stroke-width": 1.5 }, g);
      const cap = f.operator && f.operator.caps_kw ? f.operator.caps_kw[zi] : null;
      if (cap !== null && cap !== undefined) {  // evgrid_team: the operator's cap on our load
        const cx = ZX + (ZW - 60) * Math.min(1.2, cap / (z.limit_kw * (z.derate || 1))) / 1.2;
        el("line", { class: "cap", x1: cx, x2: cx, y1: y + 12, y2: y + 33, stroke: "#1f6feb", "stroke-width": 2.5, "stroke-dasharray": "3 2" }, g);
        el("text", { x: ZX + 150, y: y + 11, "font-size": 10, fill: "#1f6feb" }, g, `operator cap ${fmt(cap, 0)} kW on our EVs`);
      }
      el("text", { x: ZX + ZW - 55, y: y + 27, "font-size": 10.5 }, g, `${Math.round(100 * load)} %`);
      if (z.hotspot_c !== null && z.hotspot_c !== undefined) {
        const t = z.hotspot_c, tr = Math.max(0, Math.min(1, (t - 20) / (lim + 20 - 20)));
        el("rect", { x: ZX, y: y + 35, width: ZW - 60, height: 8, fill: "#eceff1" }, g);
        el("rect", { class: "heat", x: ZX, y: y + 35, width: (ZW - 60) * tr, height: 8, fill: t >= lim ? "#7f0000" : t >= lim - 15 ? "#ef6c00" : "#8d6e63" }, g);
        el("line", { x1: ZX + (ZW - 60) * (lim - 20) / lim, x2: ZX + (ZW - 60) * (lim - 20) / lim, y1: y + 33, y2: y + 45, stroke: "#b00020", "stroke-width": 1.5 }, g);
        el("text", { x: ZX + ZW - 55, y: y + 43, "font-size": 10 }, g, `${fmt(t, 0)} °C`);
      }
      el("title", {}, g, `${z.name}: ${fmt(z.load_kw, 0)} kW of ${fmt(z.limit_kw * (z.derate || 1), 0)} kW (ours ${fmt(z.ev_kw, 0)} kW)` +
         (z.hotspot_c !== null && z.hotspot_c !== undefined ? `, hot-spot ${fmt(z.hotspot_c, 1)} °C (limit ${lim} °C), top oil ${fmt(z.top_oil_c, 1)} °C` : ""));
    });
    el("text", { x: ZX, y: MY + 26 + zs.length * 58 + 4, "font-size": 9.5, fill: "#57606a" }, svg, "bar: feeder load (blue: our EVs), | = limit · thin bar: hot-spot °C, red | = limit");
    // price and renewable share over the day
    const c = f.curve;
    const CX = 640, CY = MY + 26 + zs.length * 58 + 24, CW = 340, CH = 150;
    if (c && c.hour && c.hour.length > 1) {
      const g = el("g", { class: "curve" }, svg);
      el("text", { x: CX - 15, y: CY - 4, "font-size": 12.5, "font-weight": 700 }, g, "Price (₹/kWh, black) and renewable share (green)");
      el("rect", { x: CX, y: CY, width: CW, height: CH, fill: "#fff", stroke: "#e3e7ec" }, g);
      const h0 = c.hour[0], h1 = c.hour[c.hour.length - 1], pmax = Math.max(...c.price) * 1.1;
      const X = (hr) => CX + ((hr - h0) / (h1 - h0)) * CW;
      const line = (vals, Y, col, cls) => el("path", { class: cls, d: vals.map((v, i) => `${i ? "L" : "M"}${X(c.hour[i]).toFixed(1)},${Y(v).toFixed(1)}`).join(""), fill: "none", stroke: col, "stroke-width": 2 }, g);
      line(c.price, (v) => CY + CH - (v / pmax) * CH, "#263238", "price");
      line(c.renewable, (v) => CY + CH - v * CH, "#2e7d32", "renewable");
      const nowH = c.hour[0] + ((f.hour - (c.hour[0] % 24) + 24) % 24);
      el("line", { class: "now", x1: X(nowH), x2: X(nowH), y1: CY, y2: CY + CH, stroke: "#b00020", "stroke-width": 1.5, "stroke-dasharray": "3 2" }, g);
      for (let hr = Math.ceil(h0 / 3) * 3; hr <= h1; hr += 3) {
        el("text", { x: X(hr), y: CY + CH + 12, "font-size": 9, "text-anchor": "middle", fill: "#57606a" }, g, `${String(hr % 24).padStart(2, "0")}h`);
      }
      el("text", { x: CX + 3, y: CY + 10, "font-size": 9, fill: "#57606a" }, g, `₹${fmt(pmax, 1)} / 100 %`);
    }
    // legend
    const ly = MY + MH + 22;
    [["idle", 0], ["70 % busy", 0.7], ["full", 1.0]].forEach(([k, r], i) => {
      el("circle", { cx: 16 + i * 90, cy: ly, r: 6, fill: ramp(r) }, svg); el("text", { x: 26 + i * 90, y: ly + 4, "font-size": 10 }, svg, k);
    });
    el("text", { x: 290, y: ly + 4, "font-size": 10 }, svg, "station size = slots · number = our EVs charging · red badge = our queue · blue dashes = EVs driving there");
    el("text", { x: 16, y: ly + 20, "font-size": 10 }, svg, "zone shade = feeder loading (green → red; dashed black outline = tripped) · ✕ = station out · ✈ airport");
  }

  /* ----- generic: any environment ----------------------------------------------------------- */
  function drawGeneric(container, st, f) {
    if (container._key !== "generic") { container.innerHTML = ""; container._key = "generic"; container._svg = null; }
    container.innerHTML = "";
    const root = h("div", { class: "generic", "data-view": "generic" }, container);
    const scalars = [], lists = [], tables = [];
    const walk = (obj, prefix, depth) => {
      for (const [k, v] of Object.entries(obj || {})) {
        const name = prefix ? `${prefix}.${k}` : k;
        if (k === "text") continue;
        if (v === null || typeof v !== "object") scalars.push([name, v]);
        else if (Array.isArray(v)) {
          if (v.length && v.every((x) => typeof x === "number")) lists.push([name, v]);
          else if (v.length && v.every((x) => x && typeof x === "object" && !Array.isArray(x))) tables.push([name, v]);
          else scalars.push([name, JSON.stringify(v).slice(0, 120)]);
        } else if (depth < 2) walk(v, name, depth + 1);
        else scalars.push([name, JSON.stringify(v).slice(0, 120)]);
      }
    };
    walk(f, "", 0);
    if (typeof f.progress === "number") {
      const bar = h("div", { style: "height:8px;background:#e3e7ec;border-radius:4px;margin:4px 0" }, root);
      h("div", { style: `height:8px;width:${(100 * f.progress).toFixed(1)}%;background:#1f6feb;border-radius:4px` }, bar);
    }
    if (f.text) h("pre", { class: "text" }, root, f.text);
    if (scalars.length) {
      const t = h("table", { class: "fields scalars" }, root);
      scalars.forEach(([k, v]) => {
        const tr = h("tr", {}, t); h("th", {}, tr, k); h("td", {}, tr, fmt(v));
      });
    }
    lists.forEach(([k, v]) => {
      h("div", { style: "font-weight:600;margin-top:6px" }, root, `${k} (${v.length})`);
      const W = 700, H = 60, svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "bars", "data-field": k }, root);
      const mx = Math.max(1e-9, ...v.map(Math.abs)), bw = W / Math.max(1, v.length);
      v.forEach((x, i) => {
        const hh = (Math.abs(x) / mx) * (H - 14);
        el("rect", { x: i * bw + 1, y: H - 12 - hh, width: Math.max(1, bw - 2), height: hh, fill: x < 0 ? "#d32f2f" : "#1f6feb" }, svg);
        if (v.length <= 30) el("text", { x: i * bw + bw / 2, y: H - 2, "font-size": 8, "text-anchor": "middle" }, svg, fmt(x, 1));
      });
    });
    // rows with coordinates (lat/lng or x/y) are also drawn as a map, one colour per table
    const coords = (r) => (typeof r.lat === "number" && typeof r.lng === "number" ? [r.lng, -r.lat]
      : typeof r.x === "number" && typeof r.y === "number" ? [r.x, r.y] : null);
    const located = tables.map(([k, rows]) => [k, rows.filter(coords)]).filter(([, rows]) => rows.length);
    if (located.length) {
      const pts = located.flatMap(([, rows]) => rows.map(coords));
      const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
      const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
      const W = 700, H = 380, M = 30, span = Math.max(x1 - x0, y1 - y0, 1e-9);
      const P = (p) => [M + ((p[0] - x0) / span) * (W - 2 * M), M + ((p[1] - y0) / span) * (H - 2 * M)];
      const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "map", "data-view": "generic-map" }, root);
      located.forEach(([k, rows], t) => {
        const color = PALETTE[t % PALETTE.length];
        el("text", { x: 8 + t * 120, y: 14, "font-size": 11, fill: color, "font-weight": 600 }, svg, `● ${k}`);
        rows.forEach((r) => {
          const [x, y] = P(coords(r));
          const g = el("g", { class: "map-point", "data-table": k }, svg);
          el("circle", { cx: x, cy: y, r: 6, fill: color, "fill-opacity": 0.8 }, g);
          const label = r.name || r.id;
          if (label !== undefined && rows.length <= 60) el("text", { x: x + 8, y: y + 4, "font-size": 9 }, g, String(label));
          el("title", {}, g, Object.entries(r).map(([a, b]) => `${a}: ${typeof b === "object" ? JSON.stringify(b) : fmt(b)}`).join("\n"));
        });
      });
    }
    tables.forEach(([k, rows]) => {
      h("div", { style: "font-weight:600;margin-top:6px" }, root, `${k} (${rows.length})`);
      const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))].slice(0, 12);
      const wrap = h("div", { class: "tablewrap" }, root);
      const t = h("table", { class: "fields rows", "data-field": k }, wrap);
      const hr = h("tr", {}, t); cols.forEach((c) => h("th", {}, hr, c));
      rows.slice(0, 40).forEach((r) => {
        const tr = h("tr", {}, t);
        cols.forEach((c) => h("td", {}, tr, typeof r[c] === "object" && r[c] !== null ? JSON.stringify(r[c]).slice(0, 60) : fmt(r[c])));
      });
      if (rows.length > 40) h("div", {}, root, `… ${rows.length - 40} more rows`);
    });
  }

  const renderers = { ed: drawEd, dispatch: drawDispatch, codered: drawCodered, dispatch_metro: drawDispatch, pharmacy: drawPharmacy, evgrid: drawEvgrid, evgrid_team: drawEvgrid, generic: drawGeneric };
  function draw(env, container, st, f) {
    const fn = renderers[env] || drawGeneric;
    try { fn(container, st || {}, f || {}); } catch (err) {
      console.error(err);
      drawGeneric(container, st, f);
    }
  }

  /* ----- charts ------------------------------------------------------------------------------ */
  const PALETTE = ["#1f6feb", "#d32f2f", "#2e7d32", "#f57c00", "#6f42c1", "#00838f", "#ad1457", "#5d4037", "#827717"];
  function chart(canvas, series, cursor, title) {
    const dpr = window.devicePixelRatio || 1;
    const W = canvas.clientWidth || 400, H = canvas.clientHeight || 150;
    if (canvas.width !== W * dpr) { canvas.width = W * dpr; canvas.height = H * dpr; }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    const n = Math.max(1, ...series.map((s) => s.values.length));
    let lo = Infinity, hi = -Infinity;
    series.forEach((s) => s.values.forEach((v) => { if (v !== null && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }));
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    if (hi - lo < 1e-9) { hi += 0.5; lo -= 0.5; }
    const L = 38, R = 6, T = 16, B = 14;
    const X = (i) => L + (i / Math.max(1, n - 1)) * (W - L - R), Y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
    ctx.font = "10px sans-serif"; ctx.fillStyle = "#57606a";
    ctx.fillText(fmt(hi, 2), 2, T + 4); ctx.fillText(fmt(lo, 2), 2, H - B);
    if (title) ctx.fillText(title, L, 10);
    ctx.strokeStyle = "#e3e7ec"; ctx.beginPath(); ctx.moveTo(L, T); ctx.lineTo(L, H - B); ctx.lineTo(W - R, H - B); ctx.stroke();
    let lx = L + (title ? ctx.measureText(title).width + 10 : 0);
    series.forEach((s, k) => {
      const color = s.color || PALETTE[k % PALETTE.length];
      ctx.strokeStyle = color; ctx.lineWidth = 1.5; ctx.beginPath();
      const step = Math.max(1, Math.floor(s.values.length / (W * 2)));
      let started = false;
      for (let i = 0; i < s.values.length; i += step) {
        const v = s.values[i];
        if (v === null || !isFinite(v)) continue;
        if (!started) { ctx.moveTo(X(i), Y(v)); started = true; } else ctx.lineTo(X(i), Y(v));
      }
      ctx.stroke();
      ctx.fillStyle = color; ctx.fillText(s.name, lx, 10); lx += ctx.measureText(s.name).width + 10;
    });
    if (cursor !== undefined && cursor !== null) {
      ctx.strokeStyle = "#000"; ctx.lineWidth = 1; ctx.beginPath(); ctx.moveTo(X(cursor), T); ctx.lineTo(X(cursor), H - B); ctx.stroke();
    }
  }

  /* ----- event log ---------------------------------------------------------------------------- */
  const NOOPS = new Set(["wait", "hold", "noop", "do_nothing", "pass"]);
  function describeAction(a, index) {
    if (!a) return index !== null && index !== undefined ? `#${index}` : "?";
    const args = Object.entries(a).filter(([k]) => k !== "kind").map(([k, v]) => `${k}=${v}`).join(", ");
    return `${a.kind}(${args})`;
  }
  function plural(n, one, many) { return `${n} ${n === 1 ? one : many || one + "s"}`; }
  function events(env, prev, cur, step) {
    const out = [];
    if (step && step.action !== undefined) {
      if (!step.valid) out.push(["ev-invalid", `✗ ${describeAction(step.action, step.index)}: ${step.message}`]);
      else if (!(step.action && NOOPS.has(step.action.kind))) out.push(["ev-action", `→ ${describeAction(step.action, step.index)}`]);
    }
    if (step && step.action !== undefined) {  // the tool's reply (tool-first envs)
      const reply = cur.last_result !== undefined ? cur.last_result : env === "codered" ? cur.last : undefined;
      if (reply && (!prev || reply !== (prev.last_result !== undefined ? prev.last_result : prev.last) || step.valid)) {
        String(reply).split("\n").slice(0, 3).forEach((line) => out.push(["ev-reply", `  ↩ ${line.slice(0, 220)}`]));
      }
    }
    if (!prev) return out;
    const pc = prev.counters || {}, cc = cur.counters || {};
    if (env === "ed") {
      const d = (k) => (cc[k] || 0) - (pc[k] || 0);
      if (d("patients") > 0) out.push(["ev-info", `+ ${plural(d("patients"), "arrival")} (waiting ${cur.waiting.length})`]);
      if (d("deaths") > 0) out.push(["ev-death", `✝ ${plural(d("deaths"), "death")}` + (d("critical_deaths") > 0 ? ` (${d("critical_deaths")} critical)` : "")]);
      if (d("lwbs") > 0) out.push(["ev-invalid", `↩ ${plural(d("lwbs"), "patient")} left without being seen`]);
      if (d("treated") > 0) out.push(["ev-good", `✓ ${plural(d("treated"), "patient")} treated and discharged`]);
      if (d("early_discharges") > 0) out.push(["ev-invalid", `! ${plural(d("early_discharges"), "early discharge")}`]);
      if (d("returns") > 0) out.push(["ev-invalid", `↻ ${plural(d("returns"), "return")} after early discharge`]);
      return out;
    }
    if (env === "evgrid" || env === "evgrid_team") {  // events are this tick's, not cumulative
      if (JSON.stringify(cur.events) !== JSON.stringify(prev.events)) (cur.events || []).forEach((e) => out.push(["ev-event", `⚠ ${e}`]));
      (cur.zones || []).forEach((z, k) => {
        const was = (prev.zones || [])[k];
        if (z.tripped && !(was && was.tripped)) out.push(["ev-death", `⚡ feeder ${z.name} tripped`]);
        if (was && z.hotspot_c >= cur.hotspot_limit_c && was.hotspot_c < cur.hotspot_limit_c) out.push(["ev-invalid", `🌡 ${z.name} hot-spot over its limit`]);
      });
      const q = (x) => (x.stations || []).reduce((a, st) => a + st.queue, 0);
      if (q(cur) !== q(prev)) out.push(["ev-info", `our queue ${q(prev)} → ${q(cur)}`]);
      return out;
    }
    if (Array.isArray(cur.events) && Array.isArray(prev.events) && cur.events.length > prev.events.length) {
      cur.events.slice(prev.events.length).forEach((e) => out.push(["ev-event", `⚠ ${typeof e === "object" ? (e.kind || JSON.stringify(e)) : e}`]));
    }
    if (env === "dispatch" || env === "dispatch_metro") {
      if (cc.calls > pc.calls) {
        const known = new Set((prev.calls || []).map((c) => c.id));
        (cur.calls || []).filter((c) => !known.has(c.id)).forEach((c) =>
          out.push(["ev-info", `☎ call #${c.id}: ${c.type}, caller ${c.tone}`]));
      }
      if (cc.closed > pc.closed) out.push(["ev-good", `✓ ${plural(cc.closed - pc.closed, "call")} closed`]);
      if (cur.last_report && cur.last_report !== prev.last_report) out.push(["ev-info", `ℹ ${cur.last_report}`]);
      return out;
    }
    for (const k of Object.keys(cc)) {  // generic: changes of counters
      if (typeof cc[k] === "number" && typeof pc[k] === "number" && cc[k] !== pc[k]) {
        out.push([/death|fatal|unmet|lost|outage/.test(k) && cc[k] > pc[k] ? "ev-death" : "ev-info", `${k}: ${fmt(pc[k], 2)} → ${fmt(cc[k], 2)}`]);
      }
    }
    return out;
  }

  /* ----- the grade: running components mid-episode, the final score at the end -------------- */
  function gradeLine(score, components, final) {
    const parts = Object.entries(components || {}).map(([k, v]) => `${k} ${fmt(v, 2)}`).join(" · ");
    if (final) return { cls: "grade final", text: `final score ${fmt(score, 3)}` + (parts ? ` (${parts})` : "") };
    return { cls: "grade running", text: `running (so far, not final): ${parts || "–"}` };
  }
  function showGrade(parent, score, components, final) {
    const g = gradeLine(score, components, final);
    return h("span", { class: g.cls, "data-final": final ? "1" : "0" }, parent, g.text);
  }

  return { draw, chart, events, renderers, el, h, fmt, describeAction, gradeLine, showGrade, PALETTE };
})();
