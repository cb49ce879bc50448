-- Follows count_out_silent.lua, which scripts() puts before it.
-- KEYS[3...] what a new crawl clears. The first worker of a crawl finds no other one.
local new = redis.call('ZCARD', KEYS[1]) == 0
if new then
  for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
return {new and 1 or 0, gone}
