# Chained comparisons mean `a < b and b < c`.
x = 5
print(1 < x < 10)  # expect: True
print(1 < x > 3)  # expect: True
print(10 > x > 7)  # expect: False
print(1 == 1.0 == True)  # expect: True
print(1 < 2 < 3 < 4 < 3)  # expect: False
print(0 <= x <= 5 != 6)  # expect: True
print("a" < "b" < "c")  # expect: True
print(3 > 2 == 2)  # expect: True
print((3 > 2) == 2)  # expect: False
lo, hi = 0, 128
print([i for i in (-1, 0, 64, 128) if lo <= i < hi])  # expect: [0, 64]
