# A local name may shadow a builtin without affecting other scopes.
def stats(values):
    max = values[0]
    for v in values:
        if v > max:
            max = v
    sum = 0
    for v in values:
        sum += v
    return max, sum


print(stats([3, 9, 2]))  # expect: (9, 14)
print(max(1, 2), sum([1, 2]))  # expect: 2 3
list_ = list("ab")
print(list_)  # expect: ['a', 'b']
