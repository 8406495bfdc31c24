-- Counts: ARGV 1 now ms, 2 index epoch. Returns {0} when not built, {-1}
-- when the epoch is stale, else {1, visible, in flight, delayed}.
local state = built(tonumber(ARGV[2]))
if state ~= 1 then
  return {state}
end
local later = redis.call("ZCOUNT", K_VIS, "(" .. ARGV[1], "+inf")
local inflight = redis.call("ZCOUNT", K_FLIGHT, "(" .. ARGV[1], "+inf")
local delayed = later - inflight
if delayed < 0 then
  delayed = 0
end
return {1, redis.call("ZCARD", K_VIS) - later, inflight, delayed}
