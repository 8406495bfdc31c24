-- SetVisibleAt: ARGV 1 group key prefix, 2 fifo, 3 id, 4 now ms,
-- 5 visible-at ms, 6 receive count (0: any). Returns 0 when the
-- message is not in flight, -1 when it is in flight under another receive
-- count than ARGV 6 (a stale receipt handle; nothing changes), 1 when done.
local gprefix, fifo, id, now = ARGV[1], ARGV[2] == "1", ARGV[3], tonumber(ARGV[4])
local want = tonumber(ARGV[6])
local rec = redis.call("HGET", K_DATA, id)
if not rec then
  return 0
end
local seq, rc, _, g = parse_record(rec)
local m = seq .. id
local ends = redis.call("ZSCORE", K_FLIGHT, m)
if not ends or tonumber(ends) <= now then
  return 0
end
if want > 0 and rc ~= want then
  return -1
end
redis.call("ZADD", K_FLIGHT, ARGV[5], m)
redis.call("ZADD", K_VIS, ARGV[5], m)
if fifo then
  reblock(gprefix, g)
end
return 1
