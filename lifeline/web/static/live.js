/* Lifeline live page (/<env>/web): start an episode and play it by hand (one form per tool,
 * built from the tool schemas; tools the action mask covers are greyed out while none of their
 * calls is legal, free-form tools stay usable and the rules check them), or watch any running
 * session, OpenEnv clients' included (read-only, polled). Each call and the env's reply go to
 * the tool log; the grade shows as running until the episode is over. */
"use strict";
(() => {
  const base = document.body.dataset.base;
  const env = document.body.dataset.env;
  const $ = (id) => document.getElementById(id);
  const L = { info: null, session: null, snap: null, history: [], calls: [], watching: false, timer: null, mine: {} };
  window.LLL = L;

  async function api(path, body) {
    // credentials: a server started with --token accepts the browser's Basic login (the token as
    // password), which the browser then sends with every same-origin request.
    const res = await fetch(`${base}/api/${path}`, body === undefined ? { credentials: "same-origin" } : {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) });
    if (!res.ok) throw new Error((await res.json().catch(() => ({}))).detail || res.statusText);
    return res.json();
  }

  function show(snap) {
    if (snap.static) L.static = snap.static;
    L.snap = snap;
    if (!L.history.length || L.history[L.history.length - 1].steps !== snap.steps) {
      L.history.push({ steps: snap.steps, score: snap.score, components: snap.components });
    }
    LL.draw(env, $("visual"), L.static || L.info.static, snap.frame);
    const last = snap.last || {};
    $("status").innerHTML = "";
    LL.h("span", {}, $("status"), `${snap.source} session · ${snap.scenario} · seed ${snap.seed} · step ${snap.steps}` +
      ` · invalid ${snap.invalid} · ` + (snap.done ? "EPISODE OVER · " : ""));
    LL.showGrade($("status"), snap.score, snap.components, snap.done);
    const msg = $("lastmsg");
    if (last.action) {
      msg.className = "msg " + (last.valid ? "ok" : "bad");
      msg.textContent = (last.valid ? "✓ " : "✗ ") + JSON.stringify(last.action) +
        ` → reward ${LL.fmt(last.reward)}` + (last.message ? ` — ${last.message}` : "");
    } else { msg.textContent = ""; }
    $("text").textContent = snap.text;
    const names = Object.keys(snap.components || {});
    LL.chart($("chart"), [
      { name: "score", values: L.history.map((h) => h.score), color: "#000" },
      ...names.map((n) => ({ name: n, values: L.history.map((h) => h.components[n]) })),
    ], L.history.length - 1, snap.done ? "grade (final)" : "grade (running)");
    // the mask: legal calls as buttons, tool forms greyed when none of their calls is legal
    const canPlay = snap.source === "web" && !snap.done;
    const byTool = {};
    snap.legal.forEach((c) => { (byTool[c.tool_name] = byTool[c.tool_name] || []).push(c); });
    // tool-first envs (no enumerable mask: free-form arguments, checked by the rules) keep every
    // tool usable; the rules' reply to each call goes to the tool log
    const covered = new Set(L.info.masked_tools || []);
    $("maskinfo").textContent = `(${snap.legal.length} legal encoded calls)`;
    document.querySelectorAll("#tools form").forEach((form) => {
      const n = (byTool[form.dataset.tool] || []).length, freeForm = !covered.has(form.dataset.tool);
      form.classList.toggle("masked", n === 0 && !freeForm);
      form.classList.toggle("freeform", freeForm);
      form.querySelector(".count").textContent = freeForm ? "free-form: the rules check it" : `${n} legal`;
      form.querySelector("button").disabled = !canPlay;
    });
    if (last.action && L.logged !== snap.steps) {
      L.logged = snap.steps;
      const reply = snap.frame && (snap.frame.last_result !== undefined ? snap.frame.last_result : snap.frame.last !== undefined ? snap.frame.last : snap.frame.last_report);
      L.calls.push({ step: snap.steps, action: last.action, valid: last.valid, message: last.message, reply });
    }
    const tlog = $("toollog");
    tlog.innerHTML = "";
    L.calls.slice(-200).forEach((c) => {
      const a = c.action.tool_name ? `${c.action.tool_name}(${Object.entries(c.action.arguments || {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ")})` : JSON.stringify(c.action);
      LL.h("div", { class: c.valid ? "ev-action" : "ev-invalid" }, tlog, `${String(c.step).padStart(4)} ${c.valid ? "→" : "✗"} ${a}`);
      const text = c.reply || c.message;
      if (text) String(text).split("\n").slice(0, 4).forEach((line) => LL.h("div", { class: "ev-reply" }, tlog, `     ↩ ${line.slice(0, 200)}`));
    });
    tlog.scrollTop = tlog.scrollHeight;
    const legal = $("legal");
    legal.innerHTML = "";
    snap.legal.slice(0, 400).forEach((c) => {
      const args = Object.entries(c.arguments).map(([k, v]) => `${k}=${v}`).join(",");
      const b = LL.h("button", { class: "call", "data-tool": c.tool_name }, legal, `${c.tool_name}(${args})`);
      b.disabled = !canPlay;
      b.addEventListener("click", () => step({ tool_name: c.tool_name, arguments: c.arguments }));
    });
    if (snap.legal.length > 400) LL.h("span", {}, legal, `… ${snap.legal.length - 400} more`);
  }

  async function step(body) {
    if (!L.session) return;
    show(await api(`session/${encodeURIComponent(L.session)}/step`, body));
    refreshSessions().catch(() => {});
  }

  function buildTools() {
    const box = $("tools");
    box.innerHTML = "";
    L.info.tools.forEach((t) => {
      const form = LL.h("form", { "data-tool": t.name, title: t.description }, box);
      LL.h("b", {}, form, t.name);
      const props = (t.input_schema && t.input_schema.properties) || {};
      Object.entries(props).forEach(([name, p]) => {
        LL.h("label", { title: p.description || "" }, form, name);
        const inp = LL.h("input", { name, type: p.type === "integer" || p.type === "number" ? "number" : "text",
                                    value: p.default !== undefined ? p.default : 0 }, form);
        if (p.type === "integer") inp.step = 1;
      });
      LL.h("button", { type: "submit" }, form, "do");
      LL.h("span", { class: "count" }, form, "");
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        const args = {};
        Object.entries(props).forEach(([name, p]) => {
          const v = form.elements[name].value;
          args[name] = p.type === "integer" ? parseInt(v, 10) : p.type === "number" ? parseFloat(v) : v;
        });
        step({ tool_name: t.name, arguments: args }).catch((err) => { $("lastmsg").textContent = String(err); });
      });
    });
  }

  async function refreshSessions() {
    const list = await api("sessions");
    const box = $("sessions");
    box.innerHTML = "";
    if (!list.length) LL.h("div", {}, box, "No running sessions. Start one above, or connect an OpenEnv client.");
    list.forEach((s) => {
      const row = LL.h("div", { class: "session", "data-id": s.id }, box);
      const key = L.mine[s.id];  // this page's own session: played with its key, not the handle
      const b = LL.h("button", {}, row, (s.id === L.session || (key && key === L.session)) ? "● shown" : (key ? "play" : "watch"));
      LL.h("span", {}, row, ` ${s.source} · ${s.scenario} · seed ${s.seed} · step ${s.steps}${s.done ? " · over" : ""}`);
      b.addEventListener("click", () => attach(key || s.id));
    });
  }

  async function attach(id) {
    L.session = id; L.history = []; L.calls = [];
    show(await api(`session/${encodeURIComponent(id)}?static=true`));
    $("who").textContent = id.startsWith("watch:") ? "watching (read-only)" : "playing by hand";
    refreshSessions();
  }

  async function poll() {
    try {
      if (L.session && L.session.startsWith("watch:")) show(await api(`session/${encodeURIComponent(L.session)}`));
      await refreshSessions();
    } catch (err) { $("who").textContent = String(err.message || err); }
  }

  async function main() {
    L.info = await api("info");
    L.info.scenarios.forEach((s) => LL.h("option", { value: s }, $("scenario"), s));
    buildTools();
    $("new").addEventListener("click", async () => {
      const seed = $("seed").value;
      const snap = await api("new", { scenario: $("scenario").value, seed: seed === "" ? null : Number(seed) });
      L.session = snap.id; L.history = []; L.calls = []; L.mine[snap.watch] = snap.id;
      show(snap);
      $("who").textContent = "playing by hand";
      refreshSessions();
    });
    await refreshSessions();
    L.timer = setInterval(poll, 1000);
    L.ready = true;
  }
  main().catch((err) => { $("who").textContent = "error: " + err; console.error(err); });
})();
