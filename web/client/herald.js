// herald.js: a small client of Herald's WebSocket protocol
// (docs/websocket.md), an ES module without dependencies. Served by Herald
// at /client/herald.js.
//
//   import { Herald } from "/client/herald.js";
//   const h = new Herald({ token: "..." });
//   await h.connect();
//   await h.subscribe("feeds.#", (msg, frame) => console.log(frame.path, msg.message_uuid));
//   await h.publish({ metadata: { paths: ["feeds.a"] }, body: Herald.toBase64("hi") });
//   await h.subscribeQueue("box-42", async (qm) => { handle(qm.body); await qm.ack(); });
//
// The client reconnects by itself, with backoff and full jitter, unless the
// close code is terminal (see shouldReconnect). After a reconnect it
// subscribes again to every pattern with `mode: recover` from the position
// of the latest message it delivered on that subscription (or from the time
// it first subscribed), and to every queue; it drops a
// message it already delivered (by message_uuid), so the application sees
// each message once across the seam, within retention and the recover
// limit. It checks each message frame's offset: a frame that skips one
// means frames were lost on the way, and the client reconnects to recover
// them.

/**
 * Whether a client should reconnect after the server (or the network)
 * closed the connection with code, by docs/websocket.md's ranges:
 * 3000–3499 and 4000–4499 reconnect, 3500–3999 and 4500–4999 do not; of
 * RFC 6455's codes 1008 and 1009 (the client's fault) do not, the others
 * (1001 shutdown, 1006 network, ...) do.
 * @param {number} code the WebSocket close code
 * @returns {boolean}
 */
export function shouldReconnect(code) {
  if ((code >= 3500 && code <= 3999) || (code >= 4500 && code <= 4999)) return false;
  if (code === 1008 || code === 1009) return false;
  return true;
}

/**
 * The backoff before reconnect attempt number attempt (from 0): a random
 * time between 0 and min(max, base × 2^attempt) milliseconds (full jitter).
 * @param {number} attempt
 * @param {number} [base=500]
 * @param {number} [max=30000]
 * @returns {number} milliseconds
 */
export function backoff(attempt, base = 500, max = 30000) {
  return Math.random() * Math.min(max, base * 2 ** Math.min(attempt, 30));
}

/** An error frame from the server, or a request that could not be sent. */
export class HeraldError extends Error {
  /**
   * @param {string} code the error frame's code (invalid, forbidden, ...), or "closed" / "not_connected"
   * @param {string} message
   */
  constructor(code, message) {
    super(code + ": " + message);
    this.name = "HeraldError";
    /** @type {string} */
    this.code = code;
  }
}

const DEDUPE = 1000; // message_uuids remembered per subscription

/** The close code the client uses when a subscription's offsets skip. */
export const CLOSE_GAP = 4000;

/**
 * @typedef {object} HeraldOptions
 * @property {string} [url] the WebSocket URL; default /v1/ws of the page's own origin
 * @property {string | (() => string | Promise<string>)} [token] a JWT, or a function called before each connection attempt (to renew it after 4003)
 * @property {number} [backoffBase=500] ms; see backoff
 * @property {number} [backoffMax=30000] ms
 * @property {number} [stableAfter=60000] ms a connection must stay up to reset the attempt count
 * @property {(state: string, info: object) => void} [onState] called on each change of state: "connecting", "open", "waiting" (info.delay, info.code), "closed" (info.code, info.reason, info.terminal)
 * @property {(err: Error) => void} [onError] error frames without a pending request, failed resubscriptions
 */

/**
 * @typedef {object} SubscribeOptions
 * @property {"live" | "latest" | "recover"} [mode="live"] the first subscription's mode; resubscriptions always recover
 * @property {string | object} [since] recover only: a message_uuid, an RFC 3339 time or a position {epoch, received_at, message_uuid}
 * @property {number} [limit] recover only: most messages to send
 * @property {number} [recoverLimit] limit of the recover after a reconnect (default: the server's)
 * @property {(frame: object) => void} [onRecovered] the `recovered` frame (frame.truncated: a gap to fill with queries; frame.epoch_changed: the store was reset, resynchronise)
 * @property {(frame: object) => void} [onLatestEnd] the `latest_end` frame
 */

/**
 * A connection to Herald's WebSocket gateway that outlives the socket:
 * subscriptions survive reconnects.
 */
export class Herald {
  /** @param {HeraldOptions} [options] */
  constructor(options = {}) {
    this.options = { backoffBase: 500, backoffMax: 30000, stableAfter: 60000, ...options };
    /** @type {"idle" | "connecting" | "open" | "waiting" | "closed"} */
    this.state = "idle";
    /** Number of connections opened so far (1 after the first connect). */
    this.connections = 0;
    /** The close event of the last connection, if any: {code, reason}. */
    this.lastClose = null;
    this._ws = null;
    this._nextId = 1;
    this._pending = new Map(); // request id -> {resolve, reject}
    this._subs = new Map(); // pattern -> subscription state
    this._queues = new Map(); // queue as subscribed -> queue subscription state
    this._attempt = 0;
    this._timer = null;
    this._stopped = false;
    this._opened = []; // {resolve, reject} of connect() calls
  }

  /**
   * Connects, and keeps reconnecting until close() or a terminal close
   * code. Resolves once the first connection is open; rejects if the
   * client ends (terminal code, close()) before that.
   * @returns {Promise<void>}
   */
  connect() {
    if (this.state === "open") return Promise.resolve();
    this._stopped = false;
    const p = new Promise((resolve, reject) => this._opened.push({ resolve, reject }));
    if (this.state === "idle" || this.state === "closed") this._dial();
    return p;
  }

  /** Closes the connection (code 1000) and stops reconnecting. */
  close() {
    this._stopped = true;
    clearTimeout(this._timer);
    if (this._ws) this._ws.close(1000);
    else if (this.state !== "closed" && this.state !== "connecting") this._end(1000, "closed by the client");
  }

  /**
   * Subscribes to an AMQP topic pattern; onMessage(message, frame) gets
   * each message once (message as the HTTP API shows it, frame the
   * `message` frame with path and source). Resolves with the `subscribed`
   * reply; when not connected, once the subscription is made after the
   * next connect.
   * @param {string} pattern
   * @param {(message: object, frame: object) => void} onMessage
   * @param {SubscribeOptions} [options]
   * @returns {Promise<object>}
   */
  subscribe(pattern, onMessage, options = {}) {
    if (this._subs.has(pattern)) return Promise.reject(new HeraldError("invalid", "already subscribed to " + pattern));
    // offset: of the last message frame on this connection; newest: the
    // position {epoch, received_at, message_uuid} of the message received
    // latest (by received_at) on this subscription.
    const sub = { pattern, onMessage, options, offset: 0, newest: null, started: "", made: false, seen: new Set(), waiters: [] };
    this._subs.set(pattern, sub);
    return this._first(sub, () => this._subsFrame(sub), () => this._subs.get(pattern) === sub && this._subs.delete(pattern));
  }

  /**
   * Ends a subscription; no message of it reaches onMessage afterwards.
   * @param {string} pattern
   * @returns {Promise<object|undefined>} the `unsubscribed` reply (undefined when not connected)
   */
  unsubscribe(pattern) {
    const s = this._subs.get(pattern);
    if (!s) return Promise.reject(new HeraldError("not_found", "not subscribed to " + pattern));
    this._subs.delete(pattern);
    s.waiters.splice(0).forEach((w) => w.reject(new HeraldError("closed", "unsubscribed")));
    if (this.state !== "open") return Promise.resolve(undefined);
    return this.request({ type: "unsubscribe", pattern });
  }

  /**
   * Publishes a message: the object POST /v1/messages takes ({metadata:
   * {paths}, body: base64, ...}). Resolves with the stored message.
   * @param {object} message
   * @returns {Promise<object>}
   */
  async publish(message) {
    return (await this.request({ type: "publish", message })).message;
  }

  /**
   * Consumes an SQS queue (a name of the token's account, or a URL).
   * onMessage(qm) gets each `queue_message` frame, with qm.ack() and
   * qm.nack() added. After a reconnect the client subscribes again: the
   * messages not acked come again, so handle them idempotently.
   * @param {string} queue
   * @param {(qm: object) => void} onMessage
   * @param {{visibilityTimeout?: number, maxInFlight?: number}} [options]
   * @returns {Promise<object>} the `subscribed` reply
   */
  subscribeQueue(queue, onMessage, options = {}) {
    if (this._queues.has(queue)) return Promise.reject(new HeraldError("invalid", "already subscribed to queue " + queue));
    const q = { queue, onMessage, options, waiters: [] };
    this._queues.set(queue, q);
    return this._first(q, () => this._queueFrame(q), () => this._queues.get(queue) === q && this._queues.delete(queue));
  }

  /**
   * Stops consuming a queue; its in-flight messages become visible again.
   * @param {string} queue as given to subscribeQueue
   * @returns {Promise<object|undefined>}
   */
  unsubscribeQueue(queue) {
    const q = this._queues.get(queue);
    if (!q) return Promise.reject(new HeraldError("not_found", "not subscribed to queue " + queue));
    this._queues.delete(queue);
    q.waiters.splice(0).forEach((w) => w.reject(new HeraldError("closed", "unsubscribed")));
    if (this.state !== "open") return Promise.resolve(undefined);
    return this.request({ type: "unsubscribe_queue", queue });
  }

  /**
   * Deletes a queue message.
   * @param {string} queue as given to subscribeQueue
   * @param {string} receiptHandle
   * @returns {Promise<object>} the `acked` reply
   */
  ack(queue, receiptHandle) {
    return this.request({ type: "ack", queue, receipt_handle: receiptHandle });
  }

  /**
   * Makes a queue message visible again at once.
   * @param {string} queue as given to subscribeQueue
   * @param {string} receiptHandle
   * @returns {Promise<object>} the `nacked` reply
   */
  nack(queue, receiptHandle) {
    return this.request({ type: "nack", queue, receipt_handle: receiptHandle });
  }

  /**
   * Runs a query (latest, all, get, rollup_*): fields as docs/websocket.md
   * names them, e.g. {query: "latest", pattern: "feeds.#"}.
   * @param {object} fields
   * @returns {Promise<object>} the `result` reply
   */
  query(fields) {
    return this.request({ ...fields, type: "query" });
  }

  /**
   * Sends any request frame (an id is added) and resolves with its reply;
   * rejects with a HeraldError on an error frame, or when the connection
   * is not open or closes first.
   * @param {object} frame
   * @returns {Promise<object>}
   */
  request(frame) {
    if (this.state !== "open") return Promise.reject(new HeraldError("not_connected", "not connected"));
    const id = String(this._nextId++);
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject });
      this._ws.send(JSON.stringify({ ...frame, id }));
    });
  }

  /** Encodes text as UTF-8 in base64, as message bodies are sent. */
  static toBase64(text) {
    let bin = "";
    for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
    return btoa(bin);
  }

  /** Decodes a base64 body as UTF-8 text. */
  static fromBase64(b64) {
    if (!b64) return "";
    return new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  }

  // ---- internals ----

  // _first sends the first subscription frame of s now, or leaves it to
  // the next connect (s.frame); on an error reply it forgets s.
  _first(s, frame, forget) {
    s.frame = frame;
    const p = new Promise((resolve, reject) => s.waiters.push({ resolve, reject }));
    if (this.state === "open") this._send(s, frame());
    p.catch(() => forget());
    return p;
  }

  // _send sends a subscription frame of s and settles the promises of the
  // subscribe call waiting for it.
  _send(s, frame) {
    const waiters = s.waiters.splice(0);
    this.request(frame).then(
      (r) => { s.made = true; waiters.forEach((w) => w.resolve(r)); },
      (err) => {
        if (waiters.length) waiters.forEach((w) => w.reject(err));
        else if (err.code !== "closed") this._error(err);
      });
  }

  _queueFrame(q) {
    const f = { type: "subscribe_queue", queue: q.queue };
    if (q.options.visibilityTimeout !== undefined) f.visibility_timeout = q.options.visibilityTimeout;
    if (q.options.maxInFlight !== undefined) f.max_in_flight = q.options.maxInFlight;
    return f;
  }

  _setState(state, info = {}) {
    this.state = state;
    if (this.options.onState) this.options.onState(state, info);
  }

  _error(err) {
    if (this.options.onError) this.options.onError(err);
  }

  _url(token) {
    // Relative to the page; outside a browser, options.url must be absolute.
    const u = new URL(this.options.url || "/v1/ws", globalThis.location ? globalThis.location.href : undefined);
    if (u.protocol === "http:") u.protocol = "ws:";
    if (u.protocol === "https:") u.protocol = "wss:";
    if (token) u.searchParams.set("token", token);
    return u.toString();
  }

  async _dial() {
    this._setState("connecting");
    let token = this.options.token;
    try {
      if (typeof token === "function") token = await token();
    } catch (err) {
      this._error(err);
      this._retry(1006, "");
      return;
    }
    if (this._stopped) {
      this._end(1000, "closed by the client");
      return;
    }
    let sock;
    try {
      sock = new WebSocket(this._url(token));
    } catch (err) { // a malformed URL: retrying cannot help
      this._end(1008, String(err));
      return;
    }
    this._ws = sock;
    let upSince = 0;
    sock.onopen = () => {
      upSince = Date.now();
      this.connections++;
      this._setState("open");
      for (const s of this._subs.values()) this._send(s, s.frame());
      for (const q of this._queues.values()) this._send(q, q.frame());
      this._opened.splice(0).forEach((w) => w.resolve());
    };
    sock.onmessage = (e) => this._onFrame(e.data);
    sock.onclose = (e) => {
      this._ws = null;
      this.lastClose = { code: e.code, reason: e.reason };
      for (const p of this._pending.values()) p.reject(new HeraldError("closed", "connection closed (" + e.code + ")"));
      this._pending.clear();
      if (upSince && Date.now() - upSince >= this.options.stableAfter) this._attempt = 0;
      if (this._stopped) this._end(e.code, e.reason);
      else if (!shouldReconnect(e.code)) this._end(e.code, e.reason);
      else this._retry(e.code, e.reason, upSince > 0);
    };
  }

  // _subsFrame is the subscribe frame of s: as asked the first time; once
  // the server made the subscription, recover from the position of the
  // latest message delivered (or from the time of the first subscription).
  _subsFrame(s) {
    s.offset = 0; // the server numbers a subscription's frames from 1
    if (!s.made) {
      s.started = new Date().toISOString();
      const f = { type: "subscribe", pattern: s.pattern, mode: s.options.mode || "live" };
      if (f.mode === "recover" && s.options.since !== undefined) f.since = s.options.since;
      if (f.mode === "recover" && s.options.limit !== undefined) f.limit = s.options.limit;
      return f;
    }
    const f = { type: "subscribe", pattern: s.pattern, mode: "recover", since: s.started };
    // The server starts a little before the position (--ws-recover-overlap)
    // for messages of other nodes that arrived out of order; repeats are
    // dropped below.
    if (s.newest && s.newest.epoch) f.since = s.newest;
    if (s.options.recoverLimit !== undefined) f.limit = s.options.recoverLimit;
    return f;
  }

  _retry(code, reason, wasOpen) {
    // 1001 (shutdown): the first retry comes after 0–1 s, other nodes are up.
    const delay = code === 1001 && wasOpen
      ? Math.random() * 1000
      : backoff(this._attempt, this.options.backoffBase, this.options.backoffMax);
    this._attempt++;
    this._setState("waiting", { code, reason, delay });
    this._timer = setTimeout(() => this._dial(), delay);
  }

  // _gap handles a message frame of s whose offset is not the next one:
  // frames were lost between the server and here, so the client closes
  // the connection and reconnects, recovering what it missed.
  _gap(s, offset) {
    this._error(new HeraldError("gap", "subscription " + s.pattern + ": offset " + offset + " after " + s.offset + "; reconnecting to recover"));
    const sock = this._ws;
    if (sock) sock.close(CLOSE_GAP, "offset gap");
  }

  _end(code, reason) {
    this._setState("closed", { code, reason, terminal: true });
    const why = new HeraldError("closed", "connection closed (" + code + (reason ? " " + reason : "") + ")");
    this._opened.splice(0).forEach((w) => w.reject(why));
    const err = new HeraldError("closed", "the client stopped");
    for (const s of [...this._subs.values(), ...this._queues.values()]) s.waiters.splice(0).forEach((w) => w.reject(err));
  }

  _onFrame(data) {
    let f;
    try {
      f = JSON.parse(data);
    } catch {
      this._error(new HeraldError("invalid_frame", "a frame from the server is not JSON"));
      return;
    }
    const p = typeof f.id === "string" && this._pending.get(f.id);
    if (p) {
      this._pending.delete(f.id);
      if (f.type === "error") p.reject(new HeraldError(f.code, f.message));
      else p.resolve(f);
      return;
    }
    switch (f.type) {
      case "message": {
        const s = this._subs.get(f.subscription);
        const m = f.message || {};
        if (!s) return;
        if (typeof f.offset === "number") {
          if (f.offset !== s.offset + 1) {
            this._gap(s, f.offset);
            return;
          }
          s.offset = f.offset;
        }
        if (m.received_at && (!s.newest || Date.parse(m.received_at) >= Date.parse(s.newest.received_at))) {
          s.newest = { epoch: f.epoch || "", received_at: m.received_at, message_uuid: m.message_uuid };
        }
        if (s.seen.has(m.message_uuid)) return;
        s.seen.add(m.message_uuid);
        if (s.seen.size > DEDUPE) s.seen.delete(s.seen.values().next().value);
        s.onMessage(m, f);
        return;
      }
      case "recovered": {
        const s = this._subs.get(f.subscription);
        if (s && s.options.onRecovered) s.options.onRecovered(f);
        return;
      }
      case "latest_end": {
        const s = this._subs.get(f.subscription);
        if (s && s.options.onLatestEnd) s.options.onLatestEnd(f);
        return;
      }
      case "queue_message": {
        const q = this._queueOf(f.queue);
        if (!q) return;
        f.ack = () => this.ack(q.queue, f.receipt_handle);
        f.nack = () => this.nack(q.queue, f.receipt_handle);
        q.onMessage(f);
        return;
      }
      case "error":
        this._error(new HeraldError(f.code, f.message));
    }
  }

  // _queueOf finds the queue subscription of a queue_message's URL: the
  // subscription named by that URL or by the queue's name.
  _queueOf(url) {
    if (this._queues.has(url)) return this._queues.get(url);
    const name = String(url).slice(String(url).lastIndexOf("/") + 1);
    return this._queues.get(name);
  }
}
