# pop, update and copy.
config = {"block": 128, "grid": 4, "debug": True}
print(config.pop("debug"))  # expect: True
print(config.pop("missing", "n/a"))  # expect: n/a
print(config)  # expect: {'block': 128, 'grid': 4}
config.update({"grid": 8, "dtype": "f32"})
print(config)  # expect: {'block': 128, 'grid': 8, 'dtype': 'f32'}
config.update(block=256)
print(config["block"])  # expect: 256
config.update([("x", 1)])
print(list(config))  # expect: ['block', 'grid', 'dtype', 'x']
snapshot = config.copy()
config["grid"] = 1
print(snapshot["grid"], config["grid"])  # expect: 8 1
nested = {"shape": [8, 128]}
shallow = nested.copy()
shallow["shape"].append(2)
print(nested)  # expect: {'shape': [8, 128, 2]}
