# Using a name after deleting it.
tmp = [1, 2]
print(len(tmp))  # expect: 2
del tmp
print(len(tmp))  # error: NameError: name 'tmp' is not defined
