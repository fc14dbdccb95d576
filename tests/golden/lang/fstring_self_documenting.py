# The `=` specifier prints the expression text, then the value's repr.
x = 3
name = "vadd"
print(f"{x=}")  # expect: x=3
print(f"{name=}")  # expect: name='vadd'
print(f"{x * 2=}")  # expect: x * 2=6
print(f"{x = }")  # expect: x = 3
print(f"{x=:05d}")  # expect: x=00003
ratio = 2 / 3
print(f"{ratio=:.3f}")  # expect: ratio=0.667
print(f"{ratio=}")  # expect: ratio=0.6666666666666666
print(f"{name=!s}")  # expect: name=vadd
