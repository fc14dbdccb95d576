# !r and !s conversions.
name = "x_ref"
print(f"{name!r}")  # expect: 'x_ref'
print(f"{name!s}")  # expect: x_ref
print(f"{[1, 'a']!s}")  # expect: [1, 'a']
print(f"{1.0!r}")  # expect: 1.0
print(f"{'it' + chr(39) + 's'!r}")  # expect: "it's"
print(f"[{name!r:>10}]")  # expect: [   'x_ref']
print(f"unknown key {'k'!r}")  # expect: unknown key 'k'
