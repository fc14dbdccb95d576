# Parsing a non-numeric string as an int.
line = "3 7 x 2"
tokens = line.split()
print(len(tokens))  # expect: 4
values = [int(t) for t in tokens]  # error: ValueError: invalid literal for int() with base 10: 'x'
