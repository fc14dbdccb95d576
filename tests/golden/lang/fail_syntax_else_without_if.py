# An else with no if before it.
x = 1
print(x)
else:  # error:
    print("no")
