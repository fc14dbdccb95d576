# keys(), values() and items(), printed and iterated.
d = {"a": 1, "b": 2}
print(d.keys())  # expect: dict_keys(['a', 'b'])
print(d.values())  # expect: dict_values([1, 2])
print(d.items())  # expect: dict_items([('a', 1), ('b', 2)])
print(list(d.items()))  # expect: [('a', 1), ('b', 2)]
print(sum(d.values()), sorted(d.keys(), reverse=True))  # expect: 3 ['b', 'a']
for key, value in d.items():
    print(f"{key}={value}")
# expect: a=1
# expect: b=2
print("a" in d.keys(), 2 in d.values())  # expect: True True
print(len(d.items()))  # expect: 2
print(max(d, key=d.get))  # expect: b
