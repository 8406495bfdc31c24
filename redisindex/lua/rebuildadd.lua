-- RebuildAdd: KEYS 7 the rebuild lock; ARGV 1 group key prefix, 2 fifo,
-- 3 lease token, 4 position ("": keep the saved one), 5 index epoch, then
-- 6 per entry (add_entries). Only while the lock holds the token: adds
-- the entries and saves the position in meta ("rp"), where Drop or a loss
-- of Redis's data forgets it with the entries it covers, and the epoch
-- ("e"), so that a bump forgets a partial rebuild too (built in
-- common.lua). Returns -1 when the lease is lost (nothing added), else how
-- many were added.
if redis.call("GET", KEYS[7]) ~= ARGV[3] then
  return -1
end
local added = add_entries(ARGV[1], ARGV[2] == "1", 6)
if ARGV[4] ~= "" then
  redis.call("HSET", K_META, "rp", ARGV[4])
end
redis.call("HSET", K_META, "e", ARGV[5])
return added
