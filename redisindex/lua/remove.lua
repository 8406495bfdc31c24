-- Remove: ARGV 1 group key prefix, 2 fifo, 3 idle ms, 4.. ids.
local gprefix, fifo, idle = ARGV[1], ARGV[2] == "1", tonumber(ARGV[3])
local touched = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local rec = redis.call("HGET", K_DATA, id)
  if rec then
    local seq, _, _, g = parse_record(rec)
    local m = seq .. id
    redis.call("HDEL", K_DATA, id)
    redis.call("ZREM", K_VIS, m)
    redis.call("ZREM", K_FLIGHT, m)
    if fifo then
      redis.call("ZREM", gprefix .. g, group_member(m))
      touched[g] = true
    end
  end
end
for g in pairs(touched) do
  reblock(gprefix, g)
end
touch_idle(idle)
return 1
