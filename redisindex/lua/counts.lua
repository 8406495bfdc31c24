-- Counts: ARGV 1 now ms. Returns {0} when not built, else {1, visible, in flight, delayed}.
if not built() then
  return {0}
end
local later = redis.call("ZCOUNT", K_VIS, "(" .. ARGV[1], "+inf")
local inflight = redis.call("ZCOUNT", K_FLIGHT, "(" .. ARGV[1], "+inf")
local delayed = later - inflight
if delayed < 0 then
  delayed = 0
end
return {1, redis.call("ZCARD", K_VIS) - later, inflight, delayed}
