-- Missing: ARGV 1 index epoch, then the ids (16 raw bytes each). Returns
-- {0} when the queue is not built, {-1} when the epoch is stale, else
-- {1, i...}: the 1-based positions (among the ids) of the ids not tracked.
local state = built(tonumber(ARGV[1]))
if state ~= 1 then
  return {state}
end
local out = {1}
for i = 2, #ARGV do
  if redis.call("HEXISTS", K_DATA, ARGV[i]) == 0 then
    out[#out + 1] = i - 1
  end
end
return out
