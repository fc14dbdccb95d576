# int() from strings, floats and other bases.
print(int("42"), int("  -7  "), int("+3"))  # expect: 42 -7 3
print(int(3.9), int(-3.9), int(0.5))  # expect: 3 -3 0
print(int("ff", 16), int("FF", 16))  # expect: 255 255
print(int("0x1f", 16))  # expect: 31
print(int("101", 2), int("17", 8))  # expect: 5 15
print(int("1_000"))  # expect: 1000
print(int(True), int(False))  # expect: 1 0
print(int("z", 36))  # expect: 35
print(int(1e18))  # expect: 1000000000000000000
print(int("007"))  # expect: 7
print(int(2.5e3))  # expect: 2500
print(int(-0.0))  # expect: 0
