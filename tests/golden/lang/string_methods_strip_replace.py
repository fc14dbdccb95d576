# strip family and replace.
raw = "  padded\t\n"
print(repr(raw.strip()))  # expect: 'padded'
print(repr(raw.lstrip()), repr(raw.rstrip()))  # expect: 'padded\t\n' '  padded'
print("xxhixx".strip("x"))  # expect: hi
print("--==title==--".strip("-="))  # expect: title
print("0042".lstrip("0"))  # expect: 42
print("file.py.py".rstrip(".py"))  # expect: file
print("a-b-c".replace("-", "+"))  # expect: a+b+c
print("a-b-c".replace("-", "", 1))  # expect: ab-c
print("aaa".replace("a", "aa"))  # expect: aaaaaa
print("hello".replace("z", "y"))  # expect: hello
