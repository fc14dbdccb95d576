# A misspelled variable name.
values = [1, 2, 3]
length = len(values)
print(length)  # expect: 3
print(lenght)  # error: NameError: name 'lenght' is not defined
