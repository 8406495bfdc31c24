-- SetVisibleAt: ARGV 1 group key prefix, 2 fifo, 3 group head scan, 4 id,
-- 5 now ms, 6 visible-at ms, 7 receive count (0: any). Returns 0 when the
-- message is not in flight, -1 when it is in flight under another receive
-- count than ARGV 7 (a stale receipt handle; nothing changes), 1 when done.
local gprefix, fifo, scan, id, now = ARGV[1], ARGV[2] == "1", tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local want = tonumber(ARGV[7])
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
redis.call("ZADD", K_FLIGHT, ARGV[6], m)
redis.call("ZADD", K_VIS, ARGV[6], m)
if fifo then
  reblock(gprefix, g, scan)
end
return 1
