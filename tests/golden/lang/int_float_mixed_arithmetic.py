# Mixing ints and floats: true division always gives a float.
print(1 + 2.0)  # expect: 3.0
print(3 * 2)  # expect: 6
print(3 * 2.0)  # expect: 6.0
print(10 / 2)  # expect: 5.0
print(10 // 2)  # expect: 5
print(10.0 // 4)  # expect: 2.0
print(2 ** 10)  # expect: 1024
print(2 ** -1)  # expect: 0.5
print(2.0 ** 3)  # expect: 8.0
print(9 ** 0.5)  # expect: 3.0
print(2 ** 0.5)  # expect: 1.4142135623730951
print(True + True)  # expect: 2
print(True * 3.5)  # expect: 3.5
print(-7 / 2)  # expect: -3.5
print(0 ** 0)  # expect: 1
print(1 - 0.9)  # expect: 0.09999999999999998
