# max() of an empty list without a default.
scores = [s for s in [3, 9] if s > 10]
print(max(scores, default=-1))  # expect: -1
best = max(scores)  # error: ValueError: max() arg is an empty sequence
print(best)
