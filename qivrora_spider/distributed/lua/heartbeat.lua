-- KEYS[1] the workers. Only a registered worker: one that left must not come back by its heartbeat.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], redis.call('TIME')[1], ARGV[1])
end
