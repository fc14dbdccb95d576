# Averaging an empty list.
def mean(xs):
    return sum(xs) / len(xs)  # error: ZeroDivisionError: division by zero


print(mean([1, 2, 3]))  # expect: 2.0
print(mean([]))
