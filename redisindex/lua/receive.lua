-- Receive: ARGV 1 group key prefix, 2 fifo, 3 idle ms, 4 now ms, 5 max,
-- 6 until ms, 7 groups to skip at most (FIFO), 8 blocks to lift at most (FIFO),
-- 9 index epoch. Returns {0} when not built, {-1} when the epoch is stale
-- (built in common.lua), else {1, next visible ms or 0, then 4 per
-- claim: id, group, receive count, first receive ms}.
local state = built(tonumber(ARGV[9]))
if state ~= 1 then
  return {state}
end
local gprefix, fifo, idle = ARGV[1], ARGV[2] == "1", tonumber(ARGV[3])
local now, max, until_ms = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local scan, lift = tonumber(ARGV[7]), tonumber(ARGV[8])

local out = {1, 0}
local function earliest(key)
  local r = redis.call("ZRANGEBYSCORE", key, "(" .. ARGV[4], "+inf", "WITHSCORES", "LIMIT", 0, 1)
  if #r > 0 then
    local s = tonumber(r[2])
    if out[2] == 0 or s < out[2] then
      out[2] = s
    end
  end
end

local function claim(m, group)
  local id = id_of(m)
  local seq, rc, first, g = parse_record(redis.call("HGET", K_DATA, id))
  rc = rc + 1
  if first == 0 then
    first = now
  end
  redis.call("HSET", K_DATA, id, make_record(seq, rc, first, g))
  redis.call("ZADD", K_VIS, until_ms, m)
  redis.call("ZADD", K_FLIGHT, until_ms, m)
  out[#out + 1] = id
  out[#out + 1] = g
  out[#out + 1] = rc
  out[#out + 1] = first
end

earliest(K_VIS)
if not fifo then
  -- Messages back from a receive first (their timeout ended or was set
  -- to end): AWS hands them out before newer messages. They are the
  -- in-flight entries whose end has passed, kept until received again.
  local back = redis.call("ZRANGEBYSCORE", K_FLIGHT, "-inf", ARGV[4], "LIMIT", 0, max)
  local taken = {}
  for _, m in ipairs(back) do
    claim(m, "")
    taken[m] = true
  end
  -- Then the oldest visible. A message just claimed with a visibility
  -- timeout of 0 is visible still: skip it, it was handed out once.
  local n = #back
  if n < max then
    local ms = redis.call("ZRANGEBYSCORE", K_VIS, "-inf", ARGV[4], "LIMIT", 0, max)
    for _, m in ipairs(ms) do
      if n >= max then
        break
      end
      if not taken[m] then
        claim(m, "")
        n = n + 1
      end
    end
  end
else
  redis.call("ZREMRANGEBYSCORE", K_FLIGHT, "-inf", ARGV[4])
  -- Lift the blocks that ended: such groups are receivable from their head.
  local ended = redis.call("ZRANGEBYSCORE", K_BLOCKED, "-inf", ARGV[4], "LIMIT", 0, lift)
  for _, g in ipairs(ended) do
    redis.call("ZREM", K_BLOCKED, g)
    local head = group_head(gprefix .. g, 1)
    if #head > 0 then
      redis.call("ZADD", K_GROUPS, group_score(head[1]), g)
    end
  end
  earliest(K_BLOCKED)
  -- Groups never received first, then by oldest head (group_score); from
  -- each, consecutive visible messages from its head, stopping at one in
  -- flight; the group is then blocked by its head, just claimed.
  local taken, skipped = 0, 0
  local groups = redis.call("ZRANGE", K_GROUPS, 0, scan + max - 1)
  for _, g in ipairs(groups) do
    if taken >= max or skipped >= scan then
      break
    end
    local n = 0
    local head = group_head(gprefix .. g, max - taken)
    if #head == 0 then
      redis.call("ZREM", K_GROUPS, g) -- cannot happen; never scan it again
    end
    for _, m in ipairs(head) do
      local vis = redis.call("ZSCORE", K_VIS, m)
      if not vis or tonumber(vis) > now then
        break
      end
      claim(m, g)
      n = n + 1
    end
    if n > 0 then
      taken = taken + n
      redis.call("ZREM", K_GROUPS, g)
      redis.call("ZADD", K_BLOCKED, until_ms, g)
    else
      skipped = skipped + 1
    end
  end
end
touch_idle(idle)
return out
