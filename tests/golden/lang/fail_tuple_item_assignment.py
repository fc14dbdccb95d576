# Tuples are immutable.
shape = (8, 128)
print(shape[0] * 2)  # expect: 16
shape[0] = 16  # error: TypeError: 'tuple' object does not support item assignment
print(shape)
