# chr and ord convert between characters and code points.
print(ord("A"), ord("a"), ord("0"))  # expect: 65 97 48
print(chr(65), chr(97 + 25))  # expect: A z
print("".join(chr(ord("a") + i) for i in range(5)))  # expect: abcde
shifted = "".join(chr((ord(c) - ord("a") + 3) % 26 + ord("a")) for c in "xyz")
print(shifted)  # expect: abc
print(ord("\n"), repr(chr(9)))  # expect: 10 '\t'
print(chr(955), ord("λ"))  # expect: λ 955
print(len("λx"), "λx"[1])  # expect: 2 x
