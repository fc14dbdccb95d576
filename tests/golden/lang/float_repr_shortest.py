# Floats print as the shortest string that reads back to the same value.
print(0.1 + 0.2)  # expect: 0.30000000000000004
print(1 / 3)  # expect: 0.3333333333333333
print(2 / 3)  # expect: 0.6666666666666666
print(1e16)  # expect: 1e+16
print(1e15)  # expect: 1000000000000000.0
print(123456789.0 * 1000)  # expect: 123456789000.0
print(2.0 ** 60)  # expect: 1.152921504606847e+18
print(0.0001)  # expect: 0.0001
print(0.00001)  # expect: 1e-05
print(100.0)  # expect: 100.0
print(1.1 * 3)  # expect: 3.3000000000000003
print(10 / 4)  # expect: 2.5
print(7 / 7)  # expect: 1.0
print(3 * 0.1)  # expect: 0.30000000000000004
print(str(2.5e-7), repr(1.5))  # expect: 2.5e-07 1.5
print([0.1, 0.25, 1e20])  # expect: [0.1, 0.25, 1e+20]
