-- KEYS[1] the facts, KEYS[2] the pending statuses, KEYS[3] the duplicate filter, KEYS[4] the queue,
-- KEYS[5] the busy workers, KEYS[6] the URLs asked for, KEYS[7] the workers, KEYS[8] this worker's
-- held requests, KEYS[9] the lease counter; ARGV[2] how many requests to take, ARGV[3], ARGV[4] and
-- ARGV[7] how many facts, pending URLs and acknowledged leases follow, ARGV[5] how many URLs asked
-- for this worker has read, ARGV[6] how many more it reads at most, then the leases, the facts and
-- the pending URLs, then a (fingerprint, score, request, URL) quadruple for each request to queue: a
-- fingerprint the filter has seen drops its request ('': queued unfiltered), and the URL of a request
-- queued is listed as asked for ('': not listed).
-- A request taken is held by its worker under a lease until the worker acknowledges it, in the step
-- that stores the facts of its response and queues the requests its callback found: a worker that
-- dies before that is counted out and its held requests go back (count_out_silent.lua). Taking marks
-- the worker busy, and registers it again if it was counted out while alive (a long pause): what it
-- holds must be handed back should it die after all.
-- Returns the requests taken as (lease, request) pairs (scrapy-redis's queue: lowest score first), the
-- places (0, 1, ...) of the requests dropped as seen, the length of the facts list (the facts stored
-- last), the URLs the others asked for since this worker last read them, and how many it has read
-- now. Those are read before its own are listed, so that it skips its own unless it had more to read
-- than it may.
local asked, most = {}, tonumber(ARGV[6])
if most > 0 then asked = redis.call('LRANGE', KEYS[6], ARGV[5], tonumber(ARGV[5]) + most - 1) end
local at = 8
for i = at, at + tonumber(ARGV[7]) - 1 do redis.call('HDEL', KEYS[8], ARGV[i]) end
at = at + tonumber(ARGV[7])
for i = at, at + tonumber(ARGV[3]) - 1 do redis.call('RPUSH', KEYS[1], ARGV[i]) end
at = at + tonumber(ARGV[3])
for i = at, at + tonumber(ARGV[4]) - 1 do redis.call('SADD', KEYS[2], ARGV[i]) end
at = at + tonumber(ARGV[4])
local seen = {}
for i = at, #ARGV, 4 do
  if ARGV[i] ~= '' and redis.call('SADD', KEYS[3], ARGV[i]) == 0 then
    seen[#seen + 1] = (i - at) / 4
  else
    redis.call('ZADD', KEYS[4], ARGV[i + 1], ARGV[i + 2])
    if ARGV[i + 3] ~= '' then redis.call('RPUSH', KEYS[6], ARGV[i + 3]) end
  end
end
local taken = {}
if tonumber(ARGV[2]) > 0 then
  local top = redis.call('ZPOPMIN', KEYS[4], ARGV[2])
  for i = 1, #top, 2 do
    local lease = redis.call('INCR', KEYS[9])
    redis.call('HSET', KEYS[8], lease, top[i + 1] .. ' ' .. top[i])
    taken[#taken + 1] = lease
    taken[#taken + 1] = top[i]
  end
  if #taken > 0 then
    redis.call('SADD', KEYS[5], ARGV[1])
    redis.call('ZADD', KEYS[7], 'NX', redis.call('TIME')[1], ARGV[1])
  end
end
local read = tonumber(ARGV[5]) + #asked
if #asked < most then read = redis.call('LLEN', KEYS[6]) end
return {taken, seen, redis.call('LLEN', KEYS[1]), asked, read}
