# ints, floats and bools compare by numeric value.
print(1 == 1.0)  # expect: True
print(2 < 2.5 < 3)  # expect: True
print(0.1 + 0.2 == 0.3)  # expect: False
print(True == 1, False == 0)  # expect: True True
print(True < 2)  # expect: True
print(-0.0 == 0)  # expect: True
print(10 ** 15 == 1e15)  # expect: True
print(max(1, 2.0), min(1, 1.0))  # expect: 2.0 1
print(sorted([3, 1.5, True, 0]))  # expect: [0, True, 1.5, 3]
print(1 != 1.0000001)  # expect: True
print([1, 2] == [1.0, 2.0])  # expect: True
print((1, 2) < (1, 2.5))  # expect: True
