-- wrk script: SendMessageBatch of 10 messages of 1 KiB to one queue over
-- the AWS JSON 1.0 protocol (messages/s = requests/s x 10).
--
--   QUEUE_URL=$url wrk -t2 -c64 -d10s --latency -s bench/sqs-send-batch.lua http://127.0.0.1:4566
--
-- (create the queue as bench/sqs-mix.lua shows). The queue keeps what is
-- sent; purge or delete it afterwards.
local url = os.getenv("QUEUE_URL") or error("set QUEUE_URL to the queue's URL")
local body = string.rep("x", 1024)
local batch

-- Built in init: wrk knows the Host header only once threads start.
function init(args)
  local entries = {}
  for i = 1, 10 do
    entries[i] = '{"Id":"m' .. i .. '","MessageBody":"' .. body .. '"}'
  end
  batch = wrk.format("POST", "/", {
    ["Content-Type"] = "application/x-amz-json-1.0",
    ["X-Amz-Target"] = "AmazonSQS.SendMessageBatch",
  }, '{"QueueUrl":"' .. url .. '","Entries":[' .. table.concat(entries, ",") .. ']}')
end

function request()
  return batch
end

failures = 0

function response(status, headers, body)
  if status ~= 200 or body:find('"Failed":%[{') then
    failures = failures + 1
  end
end
