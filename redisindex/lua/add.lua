-- Add: ARGV 1 group key prefix, 2 fifo ("1"/"0"), then 6 per entry:
-- id, visible-at ms, receive count, first receive ms, in flight ("1"/"0"), group.
-- An id already tracked is left as it is (never undo a receive).
local gprefix, fifo = ARGV[1], ARGV[2] == "1"
local added = 0
for i = 3, #ARGV, 6 do
  local id = ARGV[i]
  if redis.call("HEXISTS", K_DATA, id) == 0 then
    local vis, rc, first, inflight, group = ARGV[i + 1], tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]), ARGV[i + 4] == "1", ARGV[i + 5]
    local n = redis.call("HINCRBY", K_META, "s", 1)
    local seq = string.format("%012x", n)
    local m = seq .. id
    redis.call("HSET", K_DATA, id, make_record(seq, rc, first, group))
    redis.call("ZADD", K_VIS, vis, m)
    if inflight then
      redis.call("ZADD", K_FLIGHT, vis, m)
    end
    if fifo then
      redis.call("ZADD", gprefix .. group, 0, group_member(m))
      if inflight then
        redis.call("ZADD", K_BLOCKED, "GT", vis, group)
        redis.call("ZREM", K_GROUPS, group)
      elseif not redis.call("ZSCORE", K_BLOCKED, group) then
        redis.call("ZADD", K_GROUPS, "NX", n, group)
      end
    end
    added = added + 1
  end
end
if added > 0 then
  redis.call("PERSIST", K_META)
end
return added
