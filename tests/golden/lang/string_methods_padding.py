# Padding: ljust, rjust, center and zfill.
print("[" + "ab".ljust(5) + "]")  # expect: [ab   ]
print("[" + "ab".rjust(5) + "]")  # expect: [   ab]
print("[" + "ab".center(6) + "]")  # expect: [  ab  ]
print("[" + "abc".center(6, "*") + "]")  # expect: [*abc**]
print("[" + "ab".ljust(5, ".") + "]")  # expect: [ab...]
print("toolong".rjust(3))  # expect: toolong
print("42".zfill(5))  # expect: 00042
print("-42".zfill(5))  # expect: -0042
print("+7".zfill(4))  # expect: +007
for name, score in [("ada", 91), ("bob", 7)]:
    print(name.ljust(6) + str(score).rjust(4))
# expect: ada     91
# expect: bob      7
