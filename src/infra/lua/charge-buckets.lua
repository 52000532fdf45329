-- Claims a request's signature and charges weighted token buckets atomically (all of the
-- buckets or none), in the one round trip a signed request costs.
-- ARGV[1] is the number n of buckets; KEYS[1..n] are the buckets, ARGV[2..4n+1] their 4
-- values each (capacity, rate, cost, periodUs), ARGV[4n+2] their TTL in ms. When a
-- signature is claimed, KEYS[n+1] is its replay key and ARGV[4n+3] that key's TTL in ms;
-- when the API key's last use is due as well, KEYS[n+2] is the last-use hash and
-- ARGV[4n+4], ARGV[4n+5] the field and value written to it.
-- Levels are units x periodUs, refilled by `rate` per elapsed microsecond (see
-- src/domain/ratelimit/tokenBucket.ts, which this mirrors). Time is Redis's own clock.
-- Returns {1, remaining...} when admitted, {0, rejectedIndex, remaining, retryAfterUs} when
-- not, {2} when the signature was already used (nothing charged). A signature is used up
-- whatever the buckets answer, as it is when no bucket applies.
local n = tonumber(ARGV[1])
if #KEYS > n then
  if not redis.call('SET', KEYS[n + 1], '1', 'PX', ARGV[4 * n + 3], 'NX') then return {2} end
  if #KEYS > n + 1 then redis.call('HSET', KEYS[n + 2], ARGV[4 * n + 4], ARGV[4 * n + 5]) end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local levels = {}
local worst, worstWait = 0, 0
for i = 1, n do
  local base = (i - 1) * 4 + 1
  local cap = tonumber(ARGV[base + 1])
  local rate = tonumber(ARGV[base + 2])
  local cost = tonumber(ARGV[base + 3])
  local v = redis.call('HMGET', KEYS[i], 'l', 't')
  local level = cap
  if v[1] then
    local stored = tonumber(v[1])
    local full = math.ceil((cap - stored) / rate)
    if full < 0 then full = 0 end
    local elapsed = now - tonumber(v[2])
    if elapsed < 0 then elapsed = 0 end
    if elapsed > full then elapsed = full end
    level = math.min(cap, stored + elapsed * rate)
  end
  levels[i] = level
  if level < cost then
    local wait = math.ceil((cost - level) / rate)
    if wait > worstWait then
      worst = i
      worstWait = wait
    end
  end
end
if worst > 0 then
  local period = tonumber(ARGV[(worst - 1) * 4 + 5])
  return {0, worst - 1, math.floor(levels[worst] / period), worstWait}
end
local ttl = ARGV[4 * n + 2]
local out = {1}
for i = 1, n do
  local base = (i - 1) * 4 + 1
  local after = levels[i] - tonumber(ARGV[base + 3])
  redis.call('HSET', KEYS[i], 'l', string.format('%.0f', after), 't', string.format('%.0f', now))
  redis.call('PEXPIRE', KEYS[i], ttl)
  out[i + 1] = math.floor(after / tonumber(ARGV[base + 4]))
end
return out
