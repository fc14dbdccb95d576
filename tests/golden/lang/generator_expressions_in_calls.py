# Generator expressions passed straight to functions.
xs = [3, -1, 4, -1, 5]
print(sum(x * x for x in xs))  # expect: 52
print(max(abs(x) for x in xs))  # expect: 5
print(any(x < 0 for x in xs), all(x < 10 for x in xs))  # expect: True True
print("".join(c.upper() for c in "tpu"))  # expect: TPU
print(sorted(x for x in xs if x > 0))  # expect: [3, 4, 5]
print(list(x // 2 for x in range(5)))  # expect: [0, 0, 1, 1, 2]
print(tuple(str(x) for x in (1, 2)))  # expect: ('1', '2')
print(min((x for x in xs), key=abs))  # expect: -1
print(dict((k, len(k)) for k in ["ab", "c"]))  # expect: {'ab': 2, 'c': 1}
print(set(x % 2 for x in xs))  # expect: {0, 1}
print(sum(1 for x in xs if x == -1))  # expect: 2
