# bytes literals, their escapes and repr, and the bytes() constructor.
print(b"abc", B'x', rb"\n", b"\x00\xff\101")  # expect: b'abc' b'x' b'\\n' b'\x00\xffA'
print(b"a" b'b' rb"\c")  # expect: b'ab\\c'
print(b"it's", b'say "hi"', b'both \' and "')  # expect: b"it's" b'say "hi"' b'both \' and "'
print(b"\n\t\r\\", b"\x7f\x80\x1f ~")  # expect: b'\n\t\r\\' b'\x7f\x80\x1f ~'
print(repr(b"q"), str(b"q"), type(b""), bytes)  # expect: b'q' b'q' <class 'bytes'> <class 'bytes'>
print(isinstance(b"", bytes), isinstance("", bytes))  # expect: True False
print(bytes(), bytes(3), bytes([1, 2, 255]))  # expect: b'' b'\x00\x00\x00' b'\x01\x02\xff'
print(bytes(range(65, 68)), bytes(b"same"))  # expect: b'ABC' b'same'
print(bytes("héllo", "utf-8"), bytes("é", encoding="latin-1"))  # expect: b'h\xc3\xa9llo' b'\xe9'
print(bytes.fromhex("de ad BE EF"), b"\x00\x0f\xff".hex())  # expect: b'\xde\xad\xbe\xef' 000fff
print(b"abcdef".hex(":", 2), b"abcde".hex("-", -2))  # expect: 6162:6364:6566 6162-6364-65
print(f"{b'x'} {b'y'!r}", "{}".format(b"z"), "%s" % b"w")  # expect: b'x' b'y' b'z' b'w'
try:
    bytes([1, 256])
except ValueError as e:
    print(e)  # expect: bytes must be in range(0, 256)
try:
    bytes("text")
except TypeError as e:
    print(e)  # expect: string argument without an encoding
