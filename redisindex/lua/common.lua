-- Shared prelude of every queue script (prepended by scripts.go).
--
-- KEYS (all under the queue's hash tag, so one Cluster slot):
--   1 meta    hash: b = LAYOUT once built, e = the index epoch it was
--             built (or is being rebuilt) under, s = add sequence, rp = a
--             rebuild's saved position (rebuildadd.lua)
--   2 data    hash: message id (16 raw bytes) -> "seq:receives:firstReceiveMs:group"
--   3 vis     zset: member -> visible-at ms (every tracked message)
--   4 flight  zset: member -> end of visibility timeout ms (received messages;
--             on a standard queue, entries whose score has passed are the
--             messages back from a receive, handed out first; on a FIFO
--             queue they are stale and pruned by Receive)
--   5 groups  zset (FIFO): group -> sequence of its head, groups not blocked
--   6 blocked zset (FIFO): group -> end of its block ms
-- A member is the 12-hex-digit add sequence followed by the raw id, so
-- that members of equal score sort in add order. A FIFO group is a zset
-- (gprefix .. group) of its members, each behind its send order key, all
-- of score 0: Redis sorts them by their bytes, so in send order.
local K_META, K_DATA, K_VIS, K_FLIGHT, K_GROUPS, K_BLOCKED = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]

-- LAYOUT is the built marker of this layout of keys. An older layout
-- (b = "1": FIFO groups were lists in add order, under P{Q}:g:) is
-- forgotten at first sight, as Drop would, and rebuilt from the Store.
local LAYOUT = "2"

-- forget deletes the queue's state, its rebuild lock and its FIFO groups,
-- whose zsets (or lists) are under base .. infix .. group.
local function forget(infix)
  local base = string.sub(K_META, 1, -2)
  for _, key in ipairs({K_GROUPS, K_BLOCKED}) do
    for _, g in ipairs(redis.call("ZRANGE", key, 0, -1)) do
      redis.call("UNLINK", base .. infix .. g)
    end
  end
  redis.call("UNLINK", K_META, K_DATA, K_VIS, K_FLIGHT, K_GROUPS, K_BLOCKED, base .. "lock")
end

-- built checks the state against the caller's index epoch (a number):
-- 1 built under that epoch; 0 not built (never, lost, or forgotten here);
-- -1 the caller's epoch is stale. Field e of meta is the epoch the state
-- was written under (by markbuilt.lua and rebuildadd.lua); a marker of
-- this layout without it was built before epochs existed, under epoch 0.
-- A state of an older layout or an older epoch is forgotten at first
-- sight, as Drop would (its rebuild lease too), so that the queue is
-- rebuilt from the Store; one of a newer epoch is left as it is.
local function built(epoch)
  local meta = redis.call("HMGET", K_META, "b", "e")
  local b, e = meta[1], meta[2]
  if b and b ~= LAYOUT then
    forget("g:")
    return 0
  end
  local have = tonumber(e)
  if not have and b then
    have = 0
  end
  if have and have < epoch then
    forget("o:")
    return 0
  end
  if have and have > epoch then
    return -1
  end
  if b then
    return 1
  end
  return 0
end

local function parse_record(rec)
  local seq, rc, first, group = string.match(rec, "^([^:]*):([^:]*):([^:]*):(.*)$")
  return seq, tonumber(rc), tonumber(first), group
end

local function make_record(seq, rc, first, group)
  return seq .. ":" .. string.format("%d", rc) .. ":" .. string.format("%d", first) .. ":" .. group
end

local function seq_of(member)
  return tonumber(string.sub(member, 1, 12), 16)
end

local function id_of(member)
  return string.sub(member, 13)
end

-- order_key is where a message goes in its FIFO group: the 60-bit time of
-- its version 1 id (time_hi, time_mid, time_low), then its 14-bit clock
-- sequence, in 19 hex digits (the order of sqs.SentBefore).
local function order_key(id)
  local b1, b2, b3, b4, b5, b6, b7, b8, b9, b10 = string.byte(id, 1, 10)
  return string.format("%x%02x%02x%02x%02x%02x%02x%02x%02x%02x",
    b7 % 16, b8, b5, b6, b1, b2, b3, b4, b9 % 64, b10)
end

-- group_member is member m as its group's zset holds it; member_of undoes it.
local function group_member(m)
  return order_key(id_of(m)) .. m
end

local function member_of(gm)
  return string.sub(gm, 20)
end

-- group_head is the first count members of a group, in send order.
local function group_head(gkey, count)
  local out = redis.call("ZRANGE", gkey, 0, count - 1)
  for i, gm in ipairs(out) do
    out[i] = member_of(gm)
  end
  return out
end

-- An empty queue keeps only its meta hash, and only for idle_ms: a queue
-- nobody touches is forgotten and rebuilt (cheaply, it is empty) on use.
local function touch_idle(idle_ms)
  if redis.call("ZCARD", K_VIS) == 0 then
    if idle_ms > 0 then
      redis.call("PEXPIRE", K_META, idle_ms)
    end
  else
    redis.call("PERSIST", K_META)
  end
end

-- RETURNED is added to the score of a group (in K_GROUPS) whose head came
-- back from a receive, so that groups never received are taken first.
-- Add sequences stay far below it (2^48), and the sum is exact in a double.
local RETURNED = 4503599627370496 -- 2^52

-- group_score is where a group whose head is member m sorts in K_GROUPS.
local function group_score(m)
  local _, rc = parse_record(redis.call("HGET", K_DATA, id_of(m)))
  if rc and rc > 0 then
    return RETURNED + seq_of(m)
  end
  return seq_of(m)
end

-- reblock recomputes whether a FIFO group is blocked. As on AWS, only its
-- head blocks it: while the head is in flight, the group is blocked until
-- the head's visibility timeout ends, whatever later messages are in
-- flight; otherwise it is listed for receiving (group_score). Times are not
-- needed: a block already over is lifted by the next Receive.
local function reblock(gprefix, group)
  local head = group_head(gprefix .. group, 1)
  if #head == 0 then
    redis.call("ZREM", K_GROUPS, group)
    redis.call("ZREM", K_BLOCKED, group)
    return
  end
  local ends = redis.call("ZSCORE", K_FLIGHT, head[1])
  if ends then
    redis.call("ZADD", K_BLOCKED, ends, group)
    redis.call("ZREM", K_GROUPS, group)
  else
    redis.call("ZREM", K_BLOCKED, group)
    redis.call("ZADD", K_GROUPS, group_score(head[1]), group)
  end
end

-- add_entries adds the entries of ARGV from index first on, 6 per entry:
-- id, visible-at ms, receive count, first receive ms, in flight ("1"/"0"),
-- group. An id already tracked is left as it is (never undo a receive).
-- Returns how many were added.
local function add_entries(gprefix, fifo, first)
  local added = 0
  local touched = {}
  for i = first, #ARGV, 6 do
    local id = ARGV[i]
    if redis.call("HEXISTS", K_DATA, id) == 0 then
      local vis, rc, first_ms, inflight, group = ARGV[i + 1], tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]), ARGV[i + 4] == "1", ARGV[i + 5]
      local n = redis.call("HINCRBY", K_META, "s", 1)
      local seq = string.format("%012x", n)
      local m = seq .. id
      redis.call("HSET", K_DATA, id, make_record(seq, rc, first_ms, group))
      redis.call("ZADD", K_VIS, vis, m)
      -- On a standard queue a rebuilt message that came back from a
      -- receive is kept in flight with an ended timeout too, so that
      -- Receive hands it out first, as it did before the rebuild.
      if inflight or (not fifo and rc > 0) then
        redis.call("ZADD", K_FLIGHT, vis, m)
      end
      if fifo then
        redis.call("ZADD", gprefix .. group, 0, group_member(m))
        touched[group] = true
      end
      added = added + 1
    end
  end
  -- A message sent before the group's head (a rebuild's backlog) becomes
  -- its head, which decides whether the group is blocked.
  for g in pairs(touched) do
    reblock(gprefix, g)
  end
  if added > 0 then
    redis.call("PERSIST", K_META)
  end
  return added
end
