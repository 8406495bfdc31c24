// Herald's operator console: reads the admin API (/v1/admin/...) every
// POLL_MS and renders queues, topics and the node. Text from the server
// is only ever set as textContent, never parsed as HTML.
//
// A credential, when Herald requires one, is given as ?token=<JWT> and
// sent as a bearer token.
//
// Paths shows the latest message of every path a pattern matches (GET
// /v1/latest) and a selected path's history (GET /v1/all); a body is shown
// as text when it is UTF-8, else as base64.
//
// Peek shows a queue's oldest messages without receiving them (their
// receive counts and visibility do not change).
//
// Tests: ?check=q:NAME:VISIBLE,t:NAME:SUBSCRIPTIONS,p:NAME:MESSAGES,
// l:PATH:BODY,... makes the page wait, in order, until the queue NAME
// shows VISIBLE visible messages (t: the topic NAME shows that many
// subscriptions; p: a peek of the queue NAME, which the page opens, shows
// that many; r: after a redrive of the dead-letter queue NAME, which the
// page starts, it shows that many; l: the paths view shows PATH's latest
// body as BODY; k: the rollup NAME's chart is drawn and its top table has
// that many rows, with ?rollup=NAME&unit=...&scope.M=V; f: the open rollup
// NAME shows a trigger whose last firing crossed at that value and was
// published (updated live, without a reload); s: one message sent
// through the form to the queue NAME, then it shows VISIBLE; x: the queue
// NAME purged, then it shows VISIBLE; b: one message published through the
// topic NAME's form; o: in the open rollup, ranking the top table by a
// metric through its header, o:NAME:METRIC/VALUE[/asc] waits for VALUE
// first;
// d: clicking the top table's row NAME:VALUE/ROWS drills down into it and
// waits for ROWS rows), titling itself
// "CONSOLE STEP <i>" after each step but the last and "CONSOLE PASS" at
// the end, or "CONSOLE FAIL <reason>" after 30 s.
"use strict";

const POLL_MS = 1500;
const params = new URLSearchParams(location.search);
const token = params.get("token");
const $ = (id) => document.getElementById(id);

let selected = null; // name of the queue whose detail is open
let lastOK = 0;
let queues = [];
let topics = [];

function api(path, init = {}) {
  init.headers = Object.assign({}, init.headers || {});
  if (token) init.headers["Authorization"] = "Bearer " + token;
  return fetch(path, init).then(async (r) => {
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      const e = (body && body.error) || {};
      throw new Error((e.code || r.status) + ": " + (e.message || r.statusText));
    }
    return body;
  });
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function showError(err) {
  const p = $("error");
  p.hidden = !err;
  p.textContent = err ? String(err.message || err) : "";
}

// Views.
function showView() {
  const view = (location.hash || "#queues").slice(1);
  for (const s of document.querySelectorAll("section.view")) s.hidden = s.id !== view;
  for (const a of document.querySelectorAll("nav a[data-view]")) a.classList.toggle("active", a.dataset.view === view);
}
window.addEventListener("hashchange", showView);

// rates are the send, receive and delete rates of each queue, from this
// node's counts at two polls.
let prevCounts = new Map(); // name -> {at, sent, received, deleted}
const rates = new Map();    // name -> {sent, received, deleted} per second

function age(s) {
  if (!s) return "";
  if (s < 90) return Math.round(s) + " s";
  if (s < 5400) return Math.round(s / 60) + " min";
  return (s / 3600).toFixed(1) + " h";
}

function renderQueues(data) {
  queues = data.queues || [];
  const now = Date.now();
  for (const q of queues) {
    const p = prevCounts.get(q.name);
    if (p && now > p.at) {
      const dt = (now - p.at) / 1000;
      rates.set(q.name, { sent: (q.sent - p.sent) / dt, received: (q.received - p.received) / dt, deleted: (q.deleted - p.deleted) / dt });
    }
    prevCounts.set(q.name, { at: now, sent: q.sent, received: q.received, deleted: q.deleted });
  }
  const rows = $("queue-rows");
  rows.replaceChildren();
  for (const q of queues) {
    const tr = el("tr", null, "queue");
    tr.dataset.name = q.name;
    if (q.name === selected) tr.classList.add("selected");
    const r = rates.get(q.name) || {};
    const rate = (x) => (x === undefined ? "" : x.toFixed(1));
    tr.append(el("td", q.name), el("td", q.fifo ? "FIFO" : "standard"),
      el("td", q.visible, "n"), el("td", q.in_flight, "n"), el("td", q.delayed, "n"),
      el("td", age(q.oldest_age_seconds), "n"), el("td", rate(r.sent), "n"), el("td", rate(r.received), "n"), el("td", rate(r.deleted), "n"),
      el("td", q.dead_letter_target ? q.dead_letter_target.split(":").pop() : ""));
    tr.addEventListener("click", () => { selected = q.name; renderQueues({ queues }); renderDetail(); });
    rows.append(tr);
  }
  queuesNext = data.truncated ? data.next || "" : "";
  $("queues-more").hidden = !queuesNext;
  $("queues-first").hidden = !queuesPage;
  $("queues-note").textContent = queues.length === 0 ? (queuesPrefix ? "No queue's name starts with " + queuesPrefix + "." : "No queues yet.") :
    (data.truncated || queuesPage ? "Showing " + queues.length + " queues from " + queues[0].name + (data.truncated ? "; more on the next page." : ".") : "");
  renderDetail();
}

function renderDetail() {
  const q = queues.find((x) => x.name === selected);
  $("queue-detail").hidden = !q;
  if (!q) return;
  $("queue-title").textContent = q.name + " (" + q.url + ")";
  $("send-group").parentElement.hidden = !q.fifo;
  const body = $("queue-attrs");
  body.replaceChildren();
  for (const k of Object.keys(q.attributes).sort()) {
    const tr = el("tr");
    tr.append(el("td", k), el("td", q.attributes[k]));
    body.append(tr);
  }
}

// The topics' DOM is rebuilt only when they change, so that a message being
// typed into a publish form survives the polls; published keeps each
// form's last answer.
let topicsShown = "";
const published = new Map(); // topic name -> text of its last publish answer

function renderTopics(data) {
  topics = data.topics || [];
  const sig = JSON.stringify(topics);
  if (sig === topicsShown) return;
  topicsShown = sig;
  const list = $("topic-list");
  list.replaceChildren();
  if (topics.length === 0) list.append(el("p", "No topics yet.", "note"));
  for (const t of topics) {
    const div = el("div", null, "topic");
    div.dataset.topic = t.name;
    div.append(el("h3", t.name));
    div.append(el("p", t.arn, "note"));
    const table = el("table");
    const head = el("tr");
    head.append(el("th", "Protocol"), el("th", "Endpoint"), el("th", "State"), el("th", "Filter policy"), el("th", "Raw"),
      el("th", "Delivered", "n"), el("th", "Retried", "n"), el("th", "Failed", "n"));
    table.append(head);
    for (const s of t.subscriptions || []) {
      const tr = el("tr");
      const pending = s.SubscriptionARN === "PendingConfirmation";
      const a = s.Attributes || {};
      tr.append(el("td", s.Protocol), el("td", s.Endpoint), el("td", pending ? "pending confirmation" : "confirmed", pending ? "pending" : ""),
        el("td", a.FilterPolicy || ""), el("td", a.RawMessageDelivery === "true" ? "yes" : ""),
        el("td", s.Deliveries ? s.Deliveries.Delivered : "", "n"), el("td", s.Deliveries ? s.Deliveries.Retried : "", "n"),
        el("td", s.Deliveries ? s.Deliveries.Failed : "", "n"));
      table.append(tr);
    }
    div.append(table);
    const form = el("form");
    const msg = el("input");
    msg.placeholder = "message";
    msg.required = true;
    const btn = el("button", "Publish");
    btn.type = "submit";
    const note = el("span", published.get(t.name) || "", "note");
    form.append(msg, btn, note);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const body = { topic_arn: t.arn, message: msg.value };
      if (t.attributes.FifoTopic === "true") body.group = "console";
      try {
        const out = await api("/v1/admin/topics/publish", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
        published.set(t.name, "Published " + out.message_id);
      } catch (err) {
        published.set(t.name, String(err.message || err));
      }
      note.textContent = published.get(t.name);
    });
    div.append(form);
    list.append(div);
  }
}

function renderNode(data) {
  const rows = $("node-rows");
  rows.replaceChildren();
  const n = data.node || {};
  const add = (k, v) => { const tr = el("tr"); tr.append(el("td", k), el("td", v)); rows.append(tr); };
  add("Version", n.version);
  add("Engine", n.engine);
  add("Region", n.region);
  add("Started", n.started);
  add("Uptime", data.uptime_seconds + " s");
  for (const [k, v] of Object.entries(data.components || {})) add(k, v);
  const f = data.figures || {};
  const now = Date.now();
  if (prevFigures && now > prevFigures.at) {
    const dt = (now - prevFigures.at) / 1000;
    add("Requests/s", ((f.requests - prevFigures.requests) / dt).toFixed(1));
    add("5xx/s", ((f.server_errors - prevFigures.server_errors) / dt).toFixed(2));
    add("CPU (cores)", ((f.cpu_seconds - prevFigures.cpu_seconds) / dt).toFixed(2));
  }
  prevFigures = Object.assign({ at: now }, f);
  add("WebSocket connections", f.ws_connections);
  add("Store size", f.store_bytes ? (f.store_bytes / 1048576).toFixed(1) + " MiB" : "n/a (Cassandra)");
  add("Memory (RSS)", f.resident_bytes ? (f.resident_bytes / 1048576).toFixed(0) + " MiB" : "");
  add("Goroutines", f.goroutines);
}
let prevFigures = null;

// renderWriters shows the busiest accounts and paths and the rate limits
// (the operator's only: another account is told so).
async function pollWriters() {
  const note = $("writers-note");
  let w, l;
  try {
    [w, l] = await Promise.all([api("/v1/admin/writers"), api("/v1/admin/limits")]);
  } catch (err) {
    note.textContent = "Top writers and rate limits: " + err.message;
    note.hidden = false;
    return;
  }
  note.hidden = true;
  const accounts = $("writers-accounts");
  accounts.replaceChildren();
  for (const a of w.accounts) {
    const tr = el("tr");
    tr.append(el("td", a.account || "(none)"), el("td", a.door), el("td", a.per_second.toFixed(2), "n"));
    accounts.append(tr);
  }
  const paths = $("writers-paths");
  paths.replaceChildren();
  for (const p of w.paths) {
    const tr = el("tr");
    tr.append(el("td", p.path), el("td", p.per_second.toFixed(2), "n"));
    paths.append(tr);
  }
  const rules = $("limit-rules");
  rules.replaceChildren();
  $("limit-source").textContent = l.source === "admin"
    ? "Set at run time for every node (PUT /v1/admin/limits; DELETE returns to the configuration's)."
    : "From this node's configuration (--limit).";
  if (l.rules.length === 0) rules.append(el("li", "none: nothing is limited"));
  for (const r of l.rules) rules.append(el("li", r));
}

// decodeBody turns a base64 body into text when it is UTF-8.
function decodeBody(b64) {
  if (!b64) return "";
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return "(base64) " + b64;
  }
}

let pathPattern = params.get("pattern") || "#";
let selectedPath = null;
let latest = [];

async function pollPaths() {
  const out = await api("/v1/latest?pattern=" + encodeURIComponent(pathPattern) + "&limit=200");
  latest = out.items || [];
  const rows = $("path-rows");
  rows.replaceChildren();
  for (const it of latest) {
    const tr = el("tr", null, "queue");
    tr.dataset.path = it.path;
    if (it.path === selectedPath) tr.classList.add("selected");
    tr.append(el("td", it.path), el("td", it.message.message_uuid), el("td", it.message.received_at), el("td", decodeBody(it.message.body)));
    tr.addEventListener("click", () => { selectedPath = it.path; showHistory(); });
    rows.append(tr);
  }
}

async function showHistory() {
  if (!selectedPath) return;
  const out = await api("/v1/all?path=" + encodeURIComponent(selectedPath) + "&limit=50");
  $("path-detail").hidden = false;
  $("path-title").textContent = selectedPath + " (newest first)";
  const rows = $("history-rows");
  rows.replaceChildren();
  for (const m of out.messages || []) {
    const tr = el("tr");
    tr.append(el("td", m.message_uuid), el("td", m.received_at), el("td", JSON.stringify(m.metadata)), el("td", decodeBody(m.body)));
    rows.append(tr);
  }
}

$("paths-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  pathPattern = $("paths-pattern").value || "#";
  selectedPath = null;
  $("path-detail").hidden = true;
  pollPaths().catch(showError);
});
$("paths-pattern").value = pathPattern;

// The queue listing: a page of up to 200 queues whose names start with
// queuesPrefix, from queuesPage (a NextToken; "" the first page).
let queuesPrefix = "", queuesPage = "", queuesNext = "";
function queuesURL() {
  const q = new URLSearchParams();
  if (queuesPrefix) q.set("prefix", queuesPrefix);
  if (queuesPage) q.set("next", queuesPage);
  const s = q.toString();
  return "/v1/admin/queues" + (s ? "?" + s : "");
}
async function showQueues() {
  renderQueues(await api(queuesURL()));
}
$("queues-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  queuesPrefix = $("queues-prefix").value.trim();
  queuesPage = "";
  showQueues().catch(showError);
});
$("queues-more").addEventListener("click", () => { queuesPage = queuesNext; showQueues().catch(showError); });
$("queues-first").addEventListener("click", () => { queuesPage = ""; showQueues().catch(showError); });

async function poll() {
  try {
    if ((location.hash || "#queues") === "#paths" || steps.some((s) => s.kind === "l")) await pollPaths();
    if ((location.hash || "#queues") === "#rollups" || params.get("rollup")) await pollRollups();
    if (location.hash === "#node") await pollWriters();
    const [q, t, n] = await Promise.all([api(queuesURL()), api("/v1/admin/topics"), api("/v1/admin/node")]);
    renderQueues(q);
    renderTopics(t);
    renderNode(n);
    lastOK = Date.now();
    showError(null);
    check();
  } catch (err) {
    showError(err);
  }
  const live = $("live");
  const age = Date.now() - lastOK;
  live.textContent = lastOK ? (age < 3 * POLL_MS ? "live · " + new Date(lastOK).toLocaleTimeString() : "stale since " + new Date(lastOK).toLocaleTimeString()) : "not connected";
  live.className = "live " + (lastOK && age < 3 * POLL_MS ? "ok" : "stale");
}

// Actions.
$("send-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const q = queues.find((x) => x.name === selected);
  if (!q) return;
  const body = { body: $("send-body").value };
  if (q.fifo) body.group = $("send-group").value || "console";
  try {
    const out = await api("/v1/admin/queues/" + encodeURIComponent(q.name) + "/messages",
      { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    $("queue-result").textContent = "Sent " + out.message_id;
    poll();
  } catch (err) {
    $("queue-result").textContent = String(err.message || err);
  }
});

async function peek() {
  if (!selected) return;
  try {
    const out = await api("/v1/admin/queues/" + encodeURIComponent(selected) + "/peek?limit=20");
    const rows = $("peek-rows");
    rows.replaceChildren();
    for (const m of out.messages || []) {
      const tr = el("tr");
      tr.append(el("td", m.message_id), el("td", m.sent), el("td", m.receive_count, "n"),
        el("td", m.body_encoding === "base64" ? "(base64) " + m.body : m.body));
      rows.append(tr);
    }
    $("peeked").hidden = false;
    $("queue-result").textContent = (out.messages || []).length + " message(s), oldest first, not received";
  } catch (err) {
    $("queue-result").textContent = String(err.message || err);
  }
}
$("peek").addEventListener("click", peek);

async function redrive(ask) {
  if (!selected || (ask && !confirm("Move the messages of " + selected + " back to their source queues?"))) return;
  try {
    await api("/v1/admin/queues/" + encodeURIComponent(selected) + "/redrive", { method: "POST" });
    $("queue-result").textContent = "Redrive of " + selected + " started";
    poll();
  } catch (err) {
    $("queue-result").textContent = String(err.message || err);
  }
}
$("redrive").addEventListener("click", () => redrive(true));

async function purge(ask) {
  if (!selected || (ask && !confirm("Delete every message of " + selected + "?"))) return;
  try {
    await api("/v1/admin/queues/" + encodeURIComponent(selected) + "/purge", { method: "POST" });
    $("queue-result").textContent = "Purged " + selected;
    poll();
  } catch (err) {
    $("queue-result").textContent = String(err.message || err);
  }
}
$("purge").addEventListener("click", () => purge(true));

// The test mode (?check=...).
const steps = (params.get("check") || "").split(",").filter(Boolean).map((s) => {
  const [kind, name, want] = s.split(":");
  return { kind, name, want: Number(want), wantText: want };
});
let step = 0;
const checkStart = Date.now();

function check() {
  if (step >= steps.length) return;
  const s = steps[step];
  let got;
  if (s.kind === "l") {
    const it = latest.find((x) => x.path === s.name);
    if (it && decodeBody(it.message.body) === s.wantText) {
      step++;
      document.title = step === steps.length ? "CONSOLE PASS" : "CONSOLE STEP " + step;
    }
    return;
  }
  if (s.kind === "s" || s.kind === "x") {
    // s:NAME:VISIBLE sends one message through the form; x:NAME:VISIBLE
    // purges (without the confirmation); then waits for the count.
    if (!s.started && queues.some((x) => x.name === s.name)) {
      s.started = true;
      selected = s.name;
      renderDetail();
      if (s.kind === "s") {
        $("send-body").value = "from the console";
        $("send-form").requestSubmit();
      } else {
        purge(false);
      }
    }
    const q = queues.find((x) => x.name === s.name);
    got = s.started && q ? q.visible : undefined;
  } else if (s.kind === "b") {
    // b:TOPIC:1 publishes one message through the topic's form.
    const div = document.querySelector('.topic[data-topic="' + CSS.escape(s.name) + '"]');
    if (div && !s.started) {
      s.started = true;
      div.querySelector("input").value = "published from the console";
      div.querySelector("form").requestSubmit();
    }
    got = (published.get(s.name) || "").startsWith("Published") ? 1 : undefined;
  } else if (s.kind === "k") {
    // k:ROLLUP:ROWS: the rollup's chart is drawn and its top table has ROWS rows.
    const drawn = rollupSel && rollupSel.name === s.name && $("rollup-chart").querySelector("canvas");
    got = drawn ? $("top-rows").children.length : undefined;
  } else if (s.kind === "o") {
    // o:ROLLUP:METRIC/VALUE clicks METRIC's header in the top table (as
    // often as it takes to rank by it, descending; METRIC/VALUE/asc:
    // ascending), then waits for VALUE in its first row.
    const [metric, value, order] = s.wantText.split("/");
    const asc = order === "asc";
    const th = rollupSel && rollupSel.name === s.name && $("top-head").querySelector('th[data-metric="' + CSS.escape(metric) + '"]');
    const sorted = th && th.textContent === metric + (asc ? " ▲" : " ▼");
    if (th && !sorted && Date.now() - (s.clicked || 0) > 1000) {
      s.clicked = Date.now();
      th.click();
    }
    const first = $("top-rows").firstChild;
    if (!sorted || !first || first.dataset.value !== value) return;
    step++;
    document.title = step === steps.length ? "CONSOLE PASS" : "CONSOLE STEP " + step;
    return;
  } else if (s.kind === "d") {
    // d:ROLLUP:VALUE/ROWS clicks VALUE's row of the top table (drilling
    // down into it), then waits for a top table of ROWS rows within it.
    const [value, n] = s.wantText.split("/");
    const row = rollupSel && rollupSel.name === s.name && !topWithin && $("top-rows").querySelector('tr[data-value="' + CSS.escape(value) + '"]');
    if (row && !s.started) {
      s.started = true;
      row.click();
    }
    if (topWithin && topWithin.value === value && $("top-rows").children.length === Number(n)) {
      step++;
      document.title = step === steps.length ? "CONSOLE PASS" : "CONSOLE STEP " + step;
    }
    return;
  } else if (s.kind === "f") {
    // f:ROLLUP:VALUE: a trigger of the open rollup shows a published last firing of VALUE.
    const shown = rollupSel && rollupSel.name === s.name && Array.from($("rollup-triggers").children).some((tr) =>
      Number(tr.dataset.total) === s.want && tr.lastChild.textContent.startsWith("published "));
    got = shown ? s.want : undefined;
  } else if (s.kind === "r") {
    if (!s.started && queues.some((x) => x.name === s.name)) {
      s.started = true;
      selected = s.name;
      renderDetail();
      redrive(false);
    }
    const q = queues.find((x) => x.name === s.name);
    got = s.started && q ? q.visible : undefined;
  } else if (s.kind === "p") {
    if (selected !== s.name && queues.some((x) => x.name === s.name)) {
      selected = s.name;
      renderDetail();
      peek();
    }
    got = $("peeked").hidden ? undefined : $("peek-rows").children.length;
  } else if (s.kind === "n" || s.kind === "m") {
    // n:PREFIX:ROWS searches the queues by PREFIX through the search box;
    // m:PREFIX:ROWS clicks "Next page" of that search. Both then wait for
    // ROWS rows, every name starting with PREFIX.
    if (!s.started) {
      s.started = true;
      s.from = queues.length ? queues[0].name : "";
      if (s.kind === "n") {
        $("queues-prefix").value = s.name;
        $("queues-form").requestSubmit();
      } else {
        $("queues-more").click();
      }
    }
    const names = Array.from(document.querySelectorAll("#queue-rows tr")).map((tr) => tr.dataset.name);
    const turned = s.kind === "n" ? queuesPrefix === s.name : names[0] !== s.from;
    got = turned && names.every((n) => n.startsWith(s.name)) ? names.length : undefined;
  } else if (s.kind === "q") {
    const row = Array.from(document.querySelectorAll("#queue-rows tr")).find((tr) => tr.dataset.name === s.name);
    got = row ? Number(row.children[2].textContent) : undefined;
  } else {
    const t = topics.find((x) => x.name === s.name);
    got = t ? t.subscriptions.length : undefined;
  }
  if (got === s.want) {
    step++;
    document.title = step === steps.length ? "CONSOLE PASS" : "CONSOLE STEP " + step;
  }
}

if (steps.length > 0) {
  setTimeout(() => {
    if (step < steps.length) document.title = "CONSOLE FAIL step " + (step + 1) + " (" + steps[step].kind + ":" + steps[step].name + ") never showed " + steps[step].want;
  }, 30000);
}

showView();
poll();
setInterval(poll, POLL_MS);

// Rollups: definitions; for one, a chart of a scope's series (uPlot,
// vendored) over the last buckets of a period, and the top values of its
// first dimension, with drill-down into a dimension counted within it.
// ?rollup=NAME&unit=U&scope.M=V... opens one and shows it at once.
let rollups = [];
let rollupSel = null;
let chart = null;
const UNIT_SECONDS = { minute: 60, hour: 3600, day: 86400, week: 604800, month: 2678400, year: 31622400 };

async function pollRollups() {
  let out;
  try {
    out = await api("/v1/rollups");
  } catch (err) {
    if (String(err.message).startsWith("404") || String(err.message).startsWith("not_found")) return; // no rollups on this server
    throw err;
  }
  rollups = out.rollups || [];
  const rows = $("rollup-rows");
  rows.replaceChildren();
  for (const d of rollups) {
    const tr = el("tr", null, "queue");
    if (rollupSel && d.name === rollupSel.name) tr.classList.add("selected");
    // A part the rollup gained shows since when it counts (added).
    const since = (kind, name) => {
      const at = (d.added || {})[kind + "." + name];
      return at ? name + " (since " + new Date(at).toLocaleString() + ")" : name;
    };
    tr.append(el("td", d.name), el("td", d.scopes.map((s) => s.join("+")).join(", ")), el("td", d.metrics.map((m) => since("metrics", m)).join(", ")),
      el("td", (d.dimensions || []).map((m) => since("dimensions", m)).join(", ")), el("td", d.periods.map((p) => p.unit).join(", ")), el("td", (d.triggers || []).length));
    tr.addEventListener("click", () => openRollup(d, {}));
    rows.append(tr);
  }
  const fresh = rollupSel && rollups.find((x) => x.name === rollupSel.name);
  if (fresh) {
    rollupSel = fresh;
    renderTriggers(fresh);
  }
  if (!rollupSel && params.get("rollup")) {
    const d = rollups.find((x) => x.name === params.get("rollup"));
    if (d) {
      const values = {};
      for (const [k, v] of params) if (k.startsWith("scope.")) values[k.slice(6)] = v;
      openRollup(d, values, params.get("unit"));
      showRollup();
    }
  }
}

function openRollup(d, values, unit) {
  rollupSel = d;
  $("rollup-detail").hidden = false;
  $("rollup-title").textContent = d.name;
  const scope = $("rollup-scope");
  scope.replaceChildren();
  d.scopes.forEach((s, i) => { const o = el("option", s.join(" + ")); o.value = i; scope.append(o); });
  const fill = () => {
    const members = d.scopes[Number(scope.value)] || [];
    const span = $("rollup-scope-values");
    span.replaceChildren();
    for (const m of members) {
      const label = el("label", m);
      const input = el("input");
      input.dataset.member = m;
      input.value = values[m] || "";
      label.append(input);
      span.append(label);
    }
  };
  const want = Object.keys(values);
  const match = d.scopes.findIndex((s) => s.length === want.length && s.every((m) => want.includes(m)));
  scope.value = match >= 0 ? match : 0;
  scope.onchange = fill;
  fill();
  const u = $("rollup-unit");
  u.replaceChildren();
  for (const p of d.periods) { const o = el("option", p.unit); o.value = p.unit; u.append(o); }
  if (unit) u.value = unit;
  const dim = $("rollup-dim");
  dim.replaceChildren();
  for (const m of d.dimensions || []) { const o = el("option", m); o.value = m; dim.append(o); }
  dim.onchange = () => showRollup();
  topOrder = null;
  renderTriggers(d);
}

// renderTriggers shows the rule of each trigger of d and its last firing:
// when, in which bucket and row, at what value, and what became of its
// notification (published, or the error of the last attempt, retried).
function renderTriggers(d) {
  const rows = $("rollup-triggers");
  rows.replaceChildren();
  const when = (t) => new Date(t).toLocaleString();
  for (const t of d.triggers || []) {
    const tr = el("tr");
    tr.dataset.trigger = t.id;
    const where = Object.entries(t.scope || {}).map(([k, v]) => k + " = " + v);
    if (t.dimension) where.push(t.dimension + " = " + t.value);
    const rule = t.metric + (t.direction === "down" ? " ≤ " : " ≥ ") + t.threshold + (t.unit === "all" ? " all time" : " per " + t.unit) +
      (t.window ? " within " + t.window : "") + " (" + where.join(", ") + ") → " + t.topic_arn.split(":").pop();
    const f = t.last_firing;
    if (!f) {
      tr.append(el("td", t.id), el("td", rule), el("td", "never", "note"), el("td"), el("td"), el("td", "", "n"), el("td"));
    } else {
      tr.dataset.total = f.total;
      const outcome = f.published ? el("td", "published " + when(f.published_at)) :
        f.error ? el("td", "retrying: " + f.error + " (" + when(f.error_at) + ")", "failed") : el("td", "not published yet", "pending");
      tr.append(el("td", t.id), el("td", rule), el("td", when(f.at)), el("td", t.unit === "all" ? "all time" : f.bucket),
        el("td", f.scope.join(" / ")), el("td", f.total, "n"), outcome);
    }
    rows.append(tr);
  }
  if (rows.children.length === 0) {
    const td = el("td", "No triggers.", "note");
    td.colSpan = 7;
    const tr = el("tr");
    tr.append(td);
    rows.append(tr);
  }
}

function rollupQuery(extra) {
  const q = new URLSearchParams();
  for (const input of $("rollup-scope-values").querySelectorAll("input")) q.set("scope." + input.dataset.member, input.value);
  const unit = $("rollup-unit").value;
  q.set("unit", unit);
  if (unit !== "all") {
    const now = Date.now() / 1000;
    const step = UNIT_SECONDS[unit] || 3600;
    q.set("from", new Date((now - 24 * step) * 1000).toISOString().replace(/\.\d+Z$/, "Z"));
    q.set("to", new Date((now + step) * 1000).toISOString().replace(/\.\d+Z$/, "Z"));
  }
  for (const [k, v] of Object.entries(extra || {})) q.set(k, v);
  return q.toString();
}

// The top table: ranked by topOrder's metric ({metric, asc}; null: the
// server's default, the first metric, descending), within topWithin's
// value of a drill-down's outer dimension (null: all of them).
let topOrder = null;
let topWithin = null;

// sortTop ranks the top table by metric m: descending, and ascending when
// it already is by m, descending.
function sortTop(m) {
  topOrder = topOrder && topOrder.metric === m ? { metric: m, asc: !topOrder.asc } : { metric: m, asc: false };
  showRollup(topWithin);
}

$("top-up").addEventListener("click", () => showRollup());

async function showRollup(within) {
  const d = rollupSel;
  if (!d) return;
  topWithin = within || null;
  $("top-up").hidden = !within;
  try {
    const series = await api("/v1/rollups/" + encodeURIComponent(d.name) + "/series?" + rollupQuery());
    const xs = series.points.map((p) => Date.parse(p.bucket) / 1000);
    const data = [xs, ...series.metrics.map((_, i) => series.points.map((p) => p.values[i]))];
    if (chart) chart.destroy();
    const box = $("rollup-chart");
    box.replaceChildren();
    chart = new uPlot({ width: Math.min(900, box.clientWidth || 800), height: 260,
      series: [{}, ...series.metrics.map((m, i) => ({ label: m, stroke: ["#2b6cb0", "#c05621", "#2f855a", "#6b46c1"][i % 4] }))] }, data, box);
    const dims = d.dimensions || [];
    if (dims.length === 0) { $("top-title").textContent = ""; return; }
    const dim = within ? within.inner : ($("rollup-dim").value || dims[0]);
    const extra = { dimension: dim, n: "20" };
    if (within) extra["within." + within.outer] = within.value;
    if (topOrder) {
      extra.order_by = topOrder.metric;
      if (topOrder.asc) extra.order = "asc";
    }
    const top = await api("/v1/rollups/" + encodeURIComponent(d.name) + "/top?" + rollupQuery(extra));
    const asc = topOrder && topOrder.asc;
    $("top-title").textContent = "Top " + dim + (within ? " within " + within.outer + " = " + within.value : "") + " by " + top.order_by +
      (asc ? ", ascending" : "");
    const head = el("tr");
    head.append(el("th", dim));
    for (const m of top.metrics) {
      // A metric's header sorts by it; the one sorted by shows its order.
      const th = el("th", m + (m === top.order_by ? (asc ? " ▲" : " ▼") : ""), "n sortable");
      th.dataset.metric = m;
      th.title = "sort by " + m;
      th.addEventListener("click", () => sortTop(m));
      head.append(th);
    }
    $("top-head").replaceChildren(head);
    const rows = $("top-rows");
    rows.replaceChildren();
    for (const v of top.values) {
      const tr = el("tr");
      tr.dataset.value = v.value;
      tr.append(el("td", v.value), ...v.values.map((x) => el("td", x, "n")));
      const pair = (d.drilldowns || []).find((p) => p[0] === dim);
      if (pair && !within) {
        tr.className = "queue";
        tr.title = "drill down into " + pair[1];
        tr.addEventListener("click", () => showRollup({ outer: dim, inner: pair[1], value: v.value }));
      }
      rows.append(tr);
    }
    $("rollup-note").textContent = top.distinct + " distinct value(s)";
  } catch (err) {
    $("rollup-note").textContent = String(err.message || err);
  }
}

$("rollup-form").addEventListener("submit", (ev) => { ev.preventDefault(); showRollup(); });
