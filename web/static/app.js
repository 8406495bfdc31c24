// Herald device console: speaks docs/websocket.md through the client
// library herald.js (/client/herald.js), which reconnects and resubscribes
// by itself.
import { Herald } from "/client/herald.js";

const $ = (id) => document.getElementById(id);
let client = null;

function connect(token) {
  if (client) client.close();
  const c = new Herald({
    token,
    onState: (state, info) => {
      if (c !== client) return;
      setStatus(state, info);
      if (state === "waiting" || (state === "closed" && info.code !== 1000)) {
        showError("connection closed: " + info.code + " " + (info.reason || ""));
      }
    },
    onError: (err) => showError(err.message),
  });
  client = c;
  return c.connect();
}

function current() {
  if (!client) throw new Error("not connected");
  return client;
}

function publish(path, text) {
  return current().publish({ metadata: { paths: [path] }, body: Herald.toBase64(text) });
}

// ---- the page ----

function setStatus(state, info) {
  const up = state === "open";
  const text = { open: "connected", connecting: "connecting", closed: "disconnected",
    waiting: "reconnecting in " + ((info.delay || 0) / 1000).toFixed(1) + " s" }[state] || state;
  $("status").textContent = text;
  $("status").classList.toggle("connected", up);
  $("connect").disabled = state !== "closed";
  $("disconnect").disabled = state === "closed";
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

function showMessage(m, f) {
  addLine("messages", `[${f.source}] ${f.path} ${m.message_uuid} ${m.received_at}: ${Herald.fromBase64(m.body)}`);
}

function showRecovered(f) {
  addLine("messages", `recovered ${f.count} for ${f.subscription}${f.truncated ? " (truncated: query for the gap)" : ""}`);
}

function showQueueMessage(f) {
  const ack = document.createElement("button");
  ack.textContent = "Ack";
  const li = addLine("queue-messages", `${f.queue} ${f.message_id} (received ${f.receive_count}x): ${f.body}`, ack);
  ack.onclick = () => {
    ack.disabled = true;
    f.ack()
      .then(() => li.remove())
      .catch((err) => { ack.disabled = false; showError(err.message); });
  };
}

$("connect-form").onsubmit = guard(() => connect($("token").value));
$("disconnect").onclick = () => client && client.close();
$("subscribe-form").onsubmit = guard(async () => {
  const pattern = $("pattern").value, mode = $("mode").value;
  const options = { mode, onRecovered: showRecovered };
  if (mode === "recover" && $("since").value) options.since = $("since").value;
  const r = await current().subscribe(pattern, showMessage, options);
  const li = document.createElement("li");
  li.textContent = r.pattern + " (" + mode + ") ";
  const stop = document.createElement("button");
  stop.textContent = "Unsubscribe";
  stop.onclick = () => current().unsubscribe(pattern).then(() => li.remove(), (err) => showError(err.message));
  li.append(stop);
  $("subscriptions").append(li);
});
$("publish-form").onsubmit = guard(async () => {
  const m = await publish($("publish-path").value, $("publish-body").value);
  $("published").textContent = "published " + m.message_uuid;
});
$("queue-form").onsubmit = guard(async () => {
  const queue = $("queue").value;
  await current().subscribeQueue(queue, showQueueMessage);
  addLine("queue-messages", "watching " + queue);
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
  await current().subscribe(pattern, (m, f) => {
    showMessage(m, f);
    seen.add(m.message_uuid);
    if (published && seen.has(published)) arrived();
  });
  const m = await publish(word + ".a", "selftest " + word);
  published = m.message_uuid;
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
