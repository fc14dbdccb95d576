# Integers are 64-bit in the engine: 2**70 does not fit (CPython would print it).
x = 2 ** 60
print(x)  # expect: 1152921504606846976
print(x * 4 + (x * 4 - 1))  # expect: 9223372036854775807
y = 2 ** 70  # error: OverflowError
print(y)
