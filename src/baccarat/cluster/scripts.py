"""The Lua scripts behind ``RedisDirectory``: each check-then-write runs as one step in Redis.

Redis runs a script alone, so two nodes asking for one table at once are served one after
the other and only the first finds it free. Times are milliseconds.
"""

from __future__ import annotations

ACQUIRE = """
-- KEYS: lease, fence   ARGV: node, ttl_ms
local holder = redis.call('HGET', KEYS[1], 'node')
if holder and holder ~= ARGV[1] then return false end
-- The fence counter never expires, so a token is larger than every earlier one.
local token = redis.call('INCR', KEYS[2])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'token', token, 'ttl', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return token
"""

RENEW = """
-- KEYS: lease   ARGV: node, token
local v = redis.call('HMGET', KEYS[1], 'node', 'token', 'ttl')
if v[1] == ARGV[1] and v[2] == ARGV[2] then
  redis.call('PEXPIRE', KEYS[1], v[3])
  return 1
end
return 0
"""

RELEASE = """
-- KEYS: lease   ARGV: node, token
local v = redis.call('HMGET', KEYS[1], 'node', 'token')
if v[1] == ARGV[1] and v[2] == ARGV[2] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""

CLAIM_SEAT = """
-- KEYS: seat   ARGV: table, seat, node, ttl_ms
local held = redis.call('HGET', KEYS[1], 'table')
if held and held ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'table', ARGV[1], 'seat', ARGV[2], 'node', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""

RELEASE_SEAT = """
-- KEYS: seat   ARGV: table
if redis.call('HGET', KEYS[1], 'table') == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""

RENEW_SEATS = """
-- KEYS: seat keys   ARGV: node, ttl_ms, then one table per key
local lost = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('HMGET', key, 'table', 'node')
  if v[1] == ARGV[i + 2] and v[2] == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  else
    lost[#lost + 1] = i
  end
end
return lost
"""

PUBLISH = """
-- KEYS: lease, line, lines   ARGV: node, ttl_ms, table, line json, rank, index prefix, and
-- the JSON list of the names (under the index prefix) of the indexes the line belongs to
if redis.call('HGET', KEYS[1], 'node') ~= ARGV[1] then return 0 end
local old = redis.call('HGET', KEYS[2], 'pages')
redis.call('HSET', KEYS[2], 'node', ARGV[1], 'json', ARGV[4], 'pages', ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
-- The indexes change only when the table's room or good roads do (or its line expired).
if old ~= ARGV[7] then
  if old then
    for _, name in ipairs(cjson.decode(old)) do redis.call('ZREM', ARGV[6] .. name, ARGV[3]) end
  end
  for _, name in ipairs(cjson.decode(ARGV[7])) do
    redis.call('ZADD', ARGV[6] .. name, ARGV[5], ARGV[3])
  end
end
return 1
"""

WITHDRAW = """
-- KEYS: line, lines   ARGV: node, table, channel, message, index prefix
if redis.call('HGET', KEYS[1], 'node') ~= ARGV[1] then return 0 end
local old = redis.call('HGET', KEYS[1], 'pages')
if old then
  for _, name in ipairs(cjson.decode(old)) do redis.call('ZREM', ARGV[5] .. name, ARGV[2]) end
end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
"""

PAGE = """
-- KEYS: index   ARGV: line key prefix, start, count, the index's name
-- The index's total, then the lines from start. An index keeps a table whose line expired
-- (its node died) or moved to other indexes since; such a table leaves it here, when read.
local function belongs(pages)
  for _, name in ipairs(cjson.decode(pages)) do
    if name == ARGV[4] then return true end
  end
  return false
end
local out = {}
for attempt = 1, 4 do
  local ids = redis.call('ZRANGE', KEYS[1], ARGV[2], ARGV[2] + ARGV[3] - 1)
  local stale = false
  out = {}
  for _, id in ipairs(ids) do
    local v = redis.call('HMGET', ARGV[1] .. id, 'json', 'pages')
    if v[1] and v[2] and belongs(v[2]) then
      out[#out + 1] = v[1]
    else
      redis.call('ZREM', KEYS[1], id)
      stale = true
    end
  end
  if not stale then break end
end
table.insert(out, 1, redis.call('ZCARD', KEYS[1]))
return out
"""

LIVE_MEMBERS = """
-- KEYS: a set of names   ARGV: key prefix of each name's entry, hash field to read
-- Returns name, value pairs; names whose entry expired leave the set.
local out = {}
for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local value = redis.call('HGET', ARGV[1] .. name, ARGV[2])
  if value then
    out[#out + 1] = name
    out[#out + 1] = value
  else
    redis.call('SREM', KEYS[1], name)
  end
end
return out
"""
