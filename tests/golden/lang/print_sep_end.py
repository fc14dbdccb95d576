# print with several arguments, sep= and end=, and with no arguments.
print("a", "b", "c")  # expect: a b c
print("a", "b", sep="")  # expect: ab
print(1, 2, 3, sep=", ")  # expect: 1, 2, 3
print("no newline", end="")
print(" -> continued")  # expect: no newline -> continued
print()  # expect:
print("x", end="!\n")  # expect: x!
print(*[1, 2, 3], sep="-")  # expect: 1-2-3
print(*"abc")  # expect: a b c
print("tab", "sep", sep="\t")  # expect: tab	sep
print(1, "two", 3.0, None, True, [4])  # expect: 1 two 3.0 None True [4]
print(sep="ignored")  # expect:
for i in range(3):
    print(i, end=" " if i < 2 else "\n")  # expect: 0 1 2
