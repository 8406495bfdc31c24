-- Hide: ARGV 1 group key prefix, 2 fifo, 3 id, 4 visible-at ms. Makes a
-- received message invisible until ARGV 4, whether in flight or back from
-- its timeout. Returns {0} when the message is not tracked or was never
-- received, else {1, receive count, first receive ms, group}.
local gprefix, fifo, id = ARGV[1], ARGV[2] == "1", ARGV[3]
local rec = redis.call("HGET", K_DATA, id)
if not rec then
  return {0}
end
local seq, rc, first, g = parse_record(rec)
if rc == 0 then
  return {0}
end
local m = seq .. id
redis.call("ZADD", K_FLIGHT, ARGV[4], m)
redis.call("ZADD", K_VIS, ARGV[4], m)
if fifo then
  reblock(gprefix, g)
end
return {1, rc, first, g}
