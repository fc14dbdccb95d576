# Dict comprehensions.
words = ["pallas", "jax", "tpu"]
print({w: len(w) for w in words})  # expect: {'pallas': 6, 'jax': 3, 'tpu': 3}
print({i: i * i for i in range(4) if i})  # expect: {1: 1, 2: 4, 3: 9}
prices = {"a": 1.5, "b": 3.0}
print({k: v * 2 for k, v in prices.items()})  # expect: {'a': 3.0, 'b': 6.0}
print({v: k for k, v in {"x": 1, "y": 1}.items()})  # expect: {1: 'y'}
print({(i, j): i + j for i in range(2) for j in range(2)})
# expect: {(0, 0): 0, (0, 1): 1, (1, 0): 1, (1, 1): 2}
