-- Add: ARGV 1 group key prefix, 2 fifo ("1"/"0"), then 6 per entry
-- (add_entries in common.lua).
return add_entries(ARGV[1], ARGV[2] == "1", 3)
