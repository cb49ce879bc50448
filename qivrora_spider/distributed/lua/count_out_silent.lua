-- Every membership script starts here: KEYS[1] the workers (a sorted set scored by the time of their
-- last heartbeat, by Redis's clock so that machines need not agree on the time), KEYS[2] the busy
-- ones, ARGV[1] this worker, ARGV[2] the timeout. Workers silent for longer are counted out, and what
-- they held goes back (hand_back). `gone` lists each one counted out and how many requests it held.
local prefix = string.sub(KEYS[1], 1, #KEYS[1] - #'workers')

-- The requests a worker took and did not acknowledge go back to the queue, past the duplicate
-- filter (their URLs are in it already), with their scores; so do the statuses it was collecting.
-- Held: a hash, lease id -> '<score> <request>'.
local function hand_back(worker)
  local held = prefix .. 'held:' .. worker
  local leases = redis.call('HVALS', held)
  for _, lease in ipairs(leases) do
    local space = string.find(lease, ' ', 1, true)
    redis.call('ZADD', prefix .. 'requests', string.sub(lease, 1, space - 1), string.sub(lease, space + 1))
  end
  redis.call('DEL', held)
  local settling = prefix .. 'settling:' .. worker
  if redis.call('EXISTS', settling) == 1 then
    redis.call('SUNIONSTORE', prefix .. 'pending', prefix .. 'pending', settling)
    redis.call('DEL', settling)
  end
  if #leases > 0 then redis.call('HINCRBY', prefix .. 'counts', 'handed back', #leases) end
  return #leases
end

local now = tonumber(redis.call('TIME')[1])
local gone = {}
for _, worker in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))) do
  redis.call('ZREM', KEYS[1], worker)
  redis.call('SREM', KEYS[2], worker)
  redis.call('SADD', prefix .. 'gone', worker)
  gone[#gone + 1] = worker
  gone[#gone + 1] = hand_back(worker)
end
