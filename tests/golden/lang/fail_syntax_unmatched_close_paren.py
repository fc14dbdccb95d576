# A closing parenthesis with no opening one.
x = 1
y = (x + 2))  # error:
print(y)
