// Herald console: a small client of docs/websocket.md. Every request frame
// carries an id; its reply (or an error frame) carries the same id.
"use strict";

const $ = (id) => document.getElementById(id);
let ws = null;
let nextId = 1;
const pending = new Map(); // request id -> {resolve, reject}
const listeners = new Set(); // functions called with every server frame

function wsURL(token) {
  const u = new URL("/v1/ws", location.href);
  u.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  if (token) u.searchParams.set("token", token);
  return u.toString();
}

function connect(token) {
  return new Promise((resolve, reject) => {
    const sock = new WebSocket(wsURL(token));
    sock.onopen = () => { ws = sock; setStatus(true); resolve(); };
    sock.onerror = () => reject(new Error("cannot connect to " + wsURL("")));
    sock.onclose = (e) => {
      if (ws === sock) ws = null;
      setStatus(false);
      for (const p of pending.values()) p.reject(new Error("connection closed"));
      pending.clear();
      if (e.code !== 1000) showError("connection closed: " + e.code + " " + (e.reason || ""));
    };
    sock.onmessage = (e) => onFrame(e.data);
  });
}

function onFrame(data) {
  let f;
  try { f = JSON.parse(data); } catch { showError("bad frame from server: " + data); return; }
  const p = f.id !== undefined && pending.get(f.id);
  if (p) {
    pending.delete(f.id);
    if (f.type === "error") p.reject(new Error(f.code + ": " + f.message));
    else p.resolve(f);
  } else if (f.type === "error") {
    showError(f.code + ": " + f.message);
  }
  for (const fn of listeners) fn(f);
}

// request sends a frame and resolves with its reply (rejects on an error frame).
function request(frame) {
  if (!ws) return Promise.reject(new Error("not connected"));
  const id = String(nextId++);
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ ...frame, id }));
  });
}

function toBase64(text) {
  let bin = "";
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin);
}

function fromBase64(b64) {
  if (!b64) return "";
  const bin = atob(b64);
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

function publish(path, text) {
  return request({ type: "publish", message: { metadata: { paths: [path] }, body: toBase64(text) } });
}

// ---- the page ----

function setStatus(up) {
  $("status").textContent = up ? "connected" : "disconnected";
  $("status").classList.toggle("connected", up);
  $("connect").disabled = up;
  $("disconnect").disabled = !up;
}

function showError(text) {
  const li = document.createElement("li");
  li.textContent = new Date().toLocaleTimeString() + " " + text;
  $("errors").prepend(li);
}

function addLine(list, text, button) {
  const li = document.createElement("li");
  li.textContent = text + " ";
  if (button) li.append(button);
  $(list).prepend(li);
  return li;
}

// guard runs an async form action and shows its error.
const guard = (fn) => (e) => { e.preventDefault(); fn().catch((err) => showError(err.message)); };

listeners.add((f) => {
  if (f.type === "message") {
    const m = f.message;
    addLine("messages", `[${f.source}] ${f.path} ${m.message_uuid} ${m.received_at}: ${fromBase64(m.body)}`);
  } else if (f.type === "recovered") {
    addLine("messages", `recovered ${f.count} for ${f.subscription}${f.truncated ? " (truncated: query for the gap)" : ""}`);
  } else if (f.type === "queue_message") {
    const ack = document.createElement("button");
    ack.textContent = "Ack";
    const li = addLine("queue-messages", `${f.queue} ${f.message_id} (received ${f.receive_count}x): ${f.body}`, ack);
    ack.onclick = () => {
      ack.disabled = true;
      request({ type: "ack", queue: f.queue, receipt_handle: f.receipt_handle })
        .then(() => li.remove())
        .catch((err) => { ack.disabled = false; showError(err.message); });
    };
  }
});

$("connect-form").onsubmit = guard(() => connect($("token").value));
$("disconnect").onclick = () => ws && ws.close(1000);
$("subscribe-form").onsubmit = guard(async () => {
  const frame = { type: "subscribe", pattern: $("pattern").value, mode: $("mode").value };
  if (frame.mode === "recover" && $("since").value) frame.since = $("since").value;
  const r = await request(frame);
  const li = document.createElement("li");
  li.textContent = r.pattern + " (" + frame.mode + ")";
  $("subscriptions").append(li);
});
$("publish-form").onsubmit = guard(async () => {
  const r = await publish($("publish-path").value, $("publish-body").value);
  $("published").textContent = "published " + r.message.message_uuid;
});
$("queue-form").onsubmit = guard(async () => {
  await request({ type: "subscribe_queue", queue: $("queue").value });
  addLine("queue-messages", "watching " + $("queue").value);
});

// ---- ?selftest=<word>: connect, subscribe to <word>.#, publish to <word>.a,
// wait for it through the subscription, report in the title and #selftest.

function report(text) {
  document.title = text;
  $("selftest").hidden = false;
  $("selftest").textContent = text;
}

async function selftest(word) {
  if (!/^[A-Za-z0-9_-]+$/.test(word)) throw new Error("the selftest word must be letters, digits, _ or -");
  await connect(new URLSearchParams(location.search).get("token") || "");
  const pattern = word + ".#";
  let published = null;
  const seen = new Set();
  let arrived;
  const arrival = new Promise((resolve) => { arrived = resolve; });
  listeners.add((f) => {
    if (f.type !== "message" || f.subscription !== pattern) return;
    seen.add(f.message.message_uuid);
    if (published && seen.has(published)) arrived();
  });
  await request({ type: "subscribe", pattern, mode: "live" });
  const r = await publish(word + ".a", "selftest " + word);
  published = r.message.message_uuid;
  if (seen.has(published)) arrived();
  await arrival;
  return published;
}

const word = new URLSearchParams(location.search).get("selftest");
if (word !== null) {
  report("SELFTEST RUNNING");
  selftest(word)
    .then((uuid) => report("SELFTEST PASS " + uuid))
    .catch((err) => report("SELFTEST FAIL " + err.message));
}
