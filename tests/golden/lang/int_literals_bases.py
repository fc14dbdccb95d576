# Integer literals in every base, with underscores as digit separators.
print(0x10)  # expect: 16
print(0xFF, 0xff)  # expect: 255 255
print(0o17)  # expect: 15
print(0b101)  # expect: 5
print(0B1111_0000)  # expect: 240
print(1_000_000)  # expect: 1000000
print(-0x10)  # expect: -16
print(0, 00)  # expect: 0 0
print(0x10 + 0o10 + 0b10 + 10)  # expect: 36
print(0x7FFF_FFFF_FFFF_FFFF)  # expect: 9223372036854775807
