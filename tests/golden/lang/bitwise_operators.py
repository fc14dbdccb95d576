# Bitwise and shift operators on ints, including negatives.
x = 0b1100
y = 0b1010
print(x & y, x | y, x ^ y)  # expect: 8 14 6
print(~x)  # expect: -13
print(~-1)  # expect: 0
print(1 << 10)  # expect: 1024
print(1024 >> 3)  # expect: 128
print(-5 >> 1)  # expect: -3
print(-1 << 4)  # expect: -16
print(-6 & 0xFF)  # expect: 250
print(1 << 62)  # expect: 4611686018427387904
flags = 0
for bit in (0, 3, 5):
    flags |= 1 << bit
print(flags, flags == 0b101001)  # expect: 41 True
print([(flags >> i) & 1 for i in range(6)])  # expect: [1, 0, 0, 1, 0, 1]
print(True & False, True | False, True ^ True)  # expect: False True False
