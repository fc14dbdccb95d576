# len() of a number.
sizes = [8, 128]
print(len(sizes))  # expect: 2
n = sizes[0]
print(len(n))  # error: TypeError: object of type 'int' has no len()
