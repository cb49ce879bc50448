-- KEYS[1] the shared rules by origin, KEYS[2] who fetches them, KEYS[3] the workers; ARGV[1] this
-- worker, ARGV[2] the origin, ARGV[3] the timeout. A fetcher that is gone is replaced.
local known = redis.call('HGET', KEYS[1], ARGV[2])
if known then return {'known', known} end
local owner = redis.call('HGET', KEYS[2], ARGV[2])
if owner and owner ~= ARGV[1] then
  local beat = redis.call('ZSCORE', KEYS[3], owner)
  if beat and tonumber(beat) > tonumber(redis.call('TIME')[1]) - tonumber(ARGV[3]) then
    return {'wait'}
  end
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
return {'fetch'}
