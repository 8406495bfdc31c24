-- RebuildAdd: KEYS 7 the rebuild lock; ARGV 1 group key prefix, 2 fifo,
-- 3 lease token, 4 position ("": keep the saved one), then 6 per entry
-- (add_entries). Only while the lock holds the token: adds the entries
-- and saves the position in meta ("rp"), where Drop or a loss of Redis's
-- data forgets it with the entries it covers. Returns -1 when the lease
-- is lost (nothing added), else how many were added.
if redis.call("GET", KEYS[7]) ~= ARGV[3] then
  return -1
end
local added = add_entries(ARGV[1], ARGV[2] == "1", 5)
if ARGV[4] ~= "" then
  redis.call("HSET", K_META, "rp", ARGV[4])
end
return added
