# sum with a start value, and float accumulation error.
print(sum([1, 2, 3]))  # expect: 6
print(sum([1, 2, 3], 10))  # expect: 16
print(sum([], 5))  # expect: 5
print(sum([0.1] * 10))  # expect: 0.9999999999999999
print(sum([0.5, 0.25]))  # expect: 0.75
print(sum([[1], [2, 3]], []))  # expect: [1, 2, 3]
print(sum([True, False, True]))  # expect: 2
print(sum(range(101), start=0))  # expect: 5050
print(sum((1.5, 2)))  # expect: 3.5
