# Containers print their elements with repr.
print(["a", 1, 2.0, None, True])  # expect: ['a', 1, 2.0, None, True]
print(("x",))  # expect: ('x',)
print({"k": "v", 1: [2]})  # expect: {'k': 'v', 1: [2]}
print([[], [()], {}])  # expect: [[], [()], {}]
print(str(["it's"]))  # expect: ["it's"]
print([1.5, -0.0, 1e100])  # expect: [1.5, -0.0, 1e+100]
print(repr([1, "2"]))  # expect: [1, '2']
print(str((1, "a")))  # expect: (1, 'a')
print(f"{['nested', ('t',)]}")  # expect: ['nested', ('t',)]
print({"a": {"b": (1, [2])}})  # expect: {'a': {'b': (1, [2])}}
