-- Every membership script starts here: KEYS[1] the workers (a sorted set scored by the time of their
-- last heartbeat, by Redis's clock so that machines need not agree on the time), KEYS[2] the busy
-- ones, ARGV[1] this worker, ARGV[2] the timeout. Workers silent for longer are counted out.
local now = tonumber(redis.call('TIME')[1])
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
for _, worker in ipairs(gone) do
  redis.call('ZREM', KEYS[1], worker)
  redis.call('SREM', KEYS[2], worker)
end
