# Converting infinity to an int.
best = float("inf")
for cost in []:
    best = min(best, cost)
print(best)  # expect: inf
n = int(best)  # error: OverflowError: cannot convert float infinity to integer
