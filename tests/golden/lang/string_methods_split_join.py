# split and join.
line = "  alpha  beta gamma "
print(line.split())  # expect: ['alpha', 'beta', 'gamma']
print("a,b,,c".split(","))  # expect: ['a', 'b', '', 'c']
print("k=v=w".split("=", 1))  # expect: ['k', 'v=w']
print("one two".split(" "))  # expect: ['one', 'two']
print("".split(), "".split(","))  # expect: [] ['']
print(", ".join(["x", "y", "z"]))  # expect: x, y, z
print("".join(["a", "b"]))  # expect: ab
print("-".join("abc"))  # expect: a-b-c
print(" ".join(str(n) for n in range(4)))  # expect: 0 1 2 3
shape = "8x128x256"
dims = [int(d) for d in shape.split("x")]
print(dims, "x".join(map(str, dims[::-1])))  # expect: [8, 128, 256] 256x128x8
