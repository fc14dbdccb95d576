# Integer presentation types and sign options.
n = 255
print(f"{n:x} {n:X} {n:o} {n:b}")  # expect: ff FF 377 11111111
print(f"{n:#x} {n:#o} {n:#b}")  # expect: 0xff 0o377 0b11111111
print(f"{5:08b}")  # expect: 00000101
print(f"{5:+d} {-5:+d}")  # expect: +5 -5
print(f"{5: d}|{-5: d}")  # expect:  5|-5
print(f"{2.5:+.1f}")  # expect: +2.5
print(f"{-255:x}")  # expect: -ff
print(f"{65:c}")  # expect: A
