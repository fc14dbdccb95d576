# A list cannot be a dict key; a tuple can.
cache = {}
cache[(8, 128)] = "ok"
print(cache)  # expect: {(8, 128): 'ok'}
key = [8, 128]
cache[key] = "block"  # error: TypeError: unhashable type: 'list'
