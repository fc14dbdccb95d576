# Methods of bytes: searching, splitting and joining, stripping, replacing, case, decoding.
line = b"key=value=more"
print(line.find(b"="), line.rfind(b"="), line.find(61), line.find(b"?"))  # expect: 3 9 3 -1
print(line.count(b"e"), line.index(b"v"), b"abc".count(b""))  # expect: 3 4 4
print(line.startswith(b"key"), line.endswith((b"x", b"more")))  # expect: True True
print(line.split(b"="), line.split(b"=", 1))
# expect: [b'key', b'value', b'more'] [b'key', b'value=more']
print(line.rsplit(b"=", 1), b"  a b  ".split())  # expect: [b'key=value', b'more'] [b'a', b'b']
print(b", ".join([b"x", b"y", b"z"]), b"".join([]))  # expect: b'x, y, z' b''
print(b"  pad \n".strip(), b"xxaxx".strip(b"x"), b"xxa".lstrip(b"x"))  # expect: b'pad' b'a' b'a'
print(b"aaa".replace(b"a", b"b", 2), b"ab".replace(b"", b"."))  # expect: b'bba' b'.a.b.'
print(b"MiXeD \xff".upper(), b"MiXeD \xff".lower())  # expect: b'MIXED \xff' b'mixed \xff'
print(b"caf\xc3\xa9".decode(), b"caf\xc3\xa9".decode("ascii", "replace"))  # expect: café caf��
print("naïve".encode(), "naïve".encode("ascii", "ignore"))  # expect: b'na\xc3\xafve' b'nave'
print(str(b"\xe9t\xe9", "latin-1"), b"12".isdigit(), b"a1".isalpha())  # expect: été True False
try:
    b"\xff\xfe".decode()
except UnicodeDecodeError as e:
    print(e)  # expect: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte
try:
    "π≈3".encode("ascii")
except UnicodeError as e:
    print(e)
# expect: 'ascii' codec can't encode characters in position 0-1: ordinal not in range(128)
try:
    b"a".index(b"z")
except ValueError as e:
    print(e)  # expect: subsection not found
