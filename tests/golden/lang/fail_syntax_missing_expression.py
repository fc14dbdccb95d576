# An operator with nothing on its right.
a = 3
b = a *  # error:
print(b)
c = a + 1
