# return at module level.
x = 5
if x > 2:
    return x  # error:
print(x)
