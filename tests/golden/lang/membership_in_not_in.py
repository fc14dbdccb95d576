# `in` and `not in` on every container type.
print(3 in [1, 2, 3])  # expect: True
print(4 not in (1, 2, 3))  # expect: True
print("ell" in "hello")  # expect: True
print("" in "abc")  # expect: True
print("a" in {"a": 1, "b": 2})  # expect: True
print(1 in {"a": 1})  # expect: False
print(2 in {1, 2, 3})  # expect: True
print(5 in range(0, 10, 5))  # expect: True
print(6 in range(0, 10, 5))  # expect: False
print([1, 2] in [[1, 2], [3]])  # expect: True
print(1.0 in [1, 2])  # expect: True
vowels = "aeiou"
print([c for c in "pallas" if c not in vowels])  # expect: ['p', 'l', 'l', 's']
