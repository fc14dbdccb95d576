# Large ints that still fit in 64 bits.
big = 2 ** 62
print(big)  # expect: 4611686018427387904
print(big - 1 + big)  # expect: 9223372036854775807
print(-big * 2)  # expect: -9223372036854775808
print(10 ** 18 // 7, 10 ** 18 % 7)  # expect: 142857142857142857 1
print(3 ** 39)  # expect: 4052555153018976267
print(123456789 * 987654321)  # expect: 121932631112635269
print(abs(-(2 ** 62)))  # expect: 4611686018427387904
print(float(2 ** 53 + 1))  # expect: 9007199254740992.0
print(int(9.999e17))  # expect: 999900000000000000
