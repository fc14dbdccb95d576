# Long logical lines: backslash continuation and implicit joining inside brackets.
total = 1 + \
    2 + \
    3
print(total)  # expect: 6
values = [
    1,
    2,  # a comment inside brackets
    3,
]
print(values)  # expect: [1, 2, 3]
result = max(
    10,
    20,
)
print(result)  # expect: 20
config = {
    "block": (8,
              128),
    "grid": 4,
}
print(config)  # expect: {'block': (8, 128), 'grid': 4}
if (total > 5 and
        result > 5):
    print("both")  # expect: both
