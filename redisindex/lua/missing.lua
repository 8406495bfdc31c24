-- Missing: ARGV the ids (16 raw bytes each). Returns {0} when the queue is
-- not built, else {1, i...}: the 1-based positions of the ids not tracked.
if not built() then
  return {0}
end
local out = {1}
for i = 1, #ARGV do
  if redis.call("HEXISTS", K_DATA, ARGV[i]) == 0 then
    out[#out + 1] = i
  end
end
return out
