# The parser recovers at statement boundaries and reports every error.
width = 8
height = width *  # error:
area = width height  # error:
print(area)
f(x) = 3  # error:
print("unreachable")
