/* Lifeline replay viewer: loads every replay the server offers, shows them side by side on one
 * timeline (the first replay's steps; the others follow by simulated time), with play/pause,
 * speed, charts of return / score / score components and an event log per replay. */
"use strict";
(() => {
  const base = document.body.dataset.base || "";
  const $ = (id) => document.getElementById(id);
  const V = { panels: [], index: 0, playing: false, timer: null, ready: false };
  window.LLV = V;

  function parse(text) {
    const steps = [];
    let header = null, footer = null, cur = {};
    for (const raw of text.split("\n")) {
      if (!raw.trim()) continue;
      const line = JSON.parse(raw);
      if (line.type === "header") header = line;
      else if (line.type === "footer") footer = line;
      else if (line.type === "step") {
        cur = Object.assign({}, cur, line.frame || {});
        steps.push(Object.assign({}, line, { frame: cur }));
      }
    }
    return { header, footer, steps };
  }

  function buildPanel(rep, k, n) {
    const { header: hd, footer: ft, steps } = rep;
    const div = LL.h("div", { class: "panel", "data-env": hd.env, "data-replay": k }, $("panels"));
    LL.h("h2", {}, div, `${hd.env} / ${hd.scenario} — ${hd.agent} (seed ${hd.seed})`);
    LL.h("div", { class: "sub" }, div,
      `${hd.env} v${hd.env_version} · lifeline ${hd.package_version} · ${steps.length - 1} steps` +
      (ft ? ` · final score ${ft.score.toFixed(3)} (at the end)` : "") + ` · ${hd.file || ""}`);
    const status = LL.h("div", { class: "status" }, div);
    const visual = LL.h("div", { class: "visual" }, div);
    const cols = LL.h("div", { class: "cols" }, div);
    const left = LL.h("div", {}, cols), right = LL.h("div", {}, cols);
    const c1 = LL.h("canvas", { class: "chart score" }, left);
    const c2 = LL.h("canvas", { class: "chart return" }, left);
    LL.h("div", { style: "font-weight:600" }, right, "Event log");
    const log = LL.h("div", { class: "log" }, right);
    log.style.height = "290px";
    // precomputed series and events
    const names = Object.keys(steps[0].components || {});
    const comp = names.map((nm) => ({ name: nm, values: steps.map((s) => s.components[nm]) }));
    const score = { name: "score", values: steps.map((s) => s.score), color: "#000" };
    const ret = { name: "return", values: steps.map((s) => (s.return === undefined ? 0 : s.return)), color: "#1f6feb" };
    const rew = { name: "reward", values: steps.map((s) => (s.reward === undefined ? 0 : s.reward)), color: "#9aa7b6" };
    const evs = [];
    steps.forEach((s, i) => {
      LL.events(hd.env, i ? steps[i - 1].frame : null, s.frame, i ? s : null).forEach(([cls, text]) =>
        evs.push({ i, cls, text }));
    });
    const progress = steps.map((s) => (typeof s.frame.progress === "number" ? s.frame.progress : 0));
    return { rep, div, status, visual, c1, c2, log, comp, score, ret, rew, evs, progress, shown: -1 };
  }

  function stepFor(p, primary) {
    // the replay's step matching the primary's simulated time (last step with progress <= t)
    if (p === primary) return V.index;
    const t = primary.progress[V.index];
    const pr = p.progress;
    let lo = 0, hi = pr.length - 1;
    if (t >= pr[hi]) return V.index >= primary.progress.length - 1 ? hi : hi;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (pr[mid] <= t) lo = mid; else hi = mid - 1; }
    return lo;
  }

  function render() {
    if (!V.ready) return;
    const primary = V.panels[0];
    V.panels.forEach((p) => {
      const i = stepFor(p, primary);
      p.current = i;
      if (i === p.shown) return;
      p.shown = i;
      const s = p.rep.steps[i];
      LL.draw(p.rep.header.env, p.visual, p.rep.header.static, s.frame);
      const act = i === 0 ? "reset" : (s.valid ? "" : "<span class='bad'>invalid</span> ") + LL.describeAction(s.action, s.index);
      p.status.innerHTML = `step <b>${i}</b>/${p.rep.steps.length - 1} · ${act} · reward <b>${LL.fmt(s.reward || 0)}</b>` +
        ` · return <b>${LL.fmt(s.return || 0, 2)}</b> · `;
      const final = i === p.rep.steps.length - 1 && !!p.rep.footer;
      LL.showGrade(p.status, final ? p.rep.footer.score : s.score, s.components, final);
      if (s.message) LL.h("span", { class: "bad" }, p.status, ` · ${s.message}`);
      LL.chart(p.c1, [p.score, ...p.comp], i, final ? "grade (final)" : "grade (running)");
      LL.chart(p.c2, [p.ret, p.rew], i, "dense");
      const lines = p.evs.filter((e) => e.i <= i).slice(-300);
      p.log.innerHTML = "";
      lines.forEach((e) => LL.h("div", { class: e.cls }, p.log, `${String(e.i).padStart(5)} ${e.text}`));
      p.log.scrollTop = p.log.scrollHeight;
    });
    const f = primary.rep.steps[V.index].frame;
    $("clock").textContent = `step ${V.index}/${primary.rep.steps.length - 1}` +
      (f.clock ? ` · ${f.clock}` : "") + ` · ${(100 * (primary.progress[V.index] || 0)).toFixed(0)}%`;
    $("scrub").value = V.index;
  }

  function setIndex(i) {
    const n = V.panels[0].rep.steps.length;
    V.index = Math.max(0, Math.min(n - 1, i | 0));
    render();
  }
  V.setIndex = setIndex;

  function play(on) {
    V.playing = on;
    $("play").textContent = on ? "❚❚ pause" : "▶ play";
    clearInterval(V.timer);
    if (on) {
      V.timer = setInterval(() => {
        const n = V.panels[0].rep.steps.length;
        if (V.index >= n - 1) { play(false); return; }
        setIndex(V.index + Number($("speed").value));
      }, 100);
    }
  }

  async function main() {
    const list = await (await fetch(`${base}/api/replays`)).json();
    const texts = await Promise.all(list.map((r) => fetch(`${base}/api/replay/${r.id}`).then((x) => x.text())));
    const reps = texts.map(parse);
    reps.forEach((r, k) => { r.header.file = list[k].file; });
    $("panels").style.gridTemplateColumns = `repeat(${Math.min(reps.length, 3)}, minmax(0, 1fr))`;
    V.panels = reps.map((r, k) => buildPanel(r, k, reps.length));
    document.title = `Lifeline replay — ${reps.map((r) => `${r.header.env}/${r.header.agent}`).join(" vs ")}`;
    $("scrub").max = reps[0].steps.length - 1;
    $("scrub").addEventListener("input", (e) => setIndex(Number(e.target.value)));
    $("play").addEventListener("click", () => play(!V.playing));
    $("back").addEventListener("click", () => setIndex(V.index - 1));
    $("fwd").addEventListener("click", () => setIndex(V.index + 1));
    document.addEventListener("keydown", (e) => {
      if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
      if (e.key === " ") { e.preventDefault(); play(!V.playing); }
      if (e.key === "ArrowRight") { e.preventDefault(); setIndex(V.index + 1); }
      if (e.key === "ArrowLeft") { e.preventDefault(); setIndex(V.index - 1); }
    });
    window.addEventListener("resize", () => { V.panels.forEach((p) => { p.shown = -1; }); render(); });
    V.ready = true;
    setIndex(0);
  }
  main().catch((err) => { $("clock").textContent = "error: " + err; console.error(err); });
})();
