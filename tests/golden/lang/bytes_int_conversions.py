# int.to_bytes and int.from_bytes: fixed-width integers as bytes, either byte order.
print((1025).to_bytes(2, "big"), (1025).to_bytes(2, "little"))  # expect: b'\x04\x01' b'\x01\x04'
print((-2).to_bytes(3, "big", signed=True), (7).to_bytes())  # expect: b'\xff\xff\xfe' b'\x07'
print((-128).to_bytes(1, "little", signed=True), (0).to_bytes(0, "big"))  # expect: b'\x80' b''
print(int.from_bytes(b"\x04\x01", "big"), int.from_bytes(b"\x04\x01", "little"))  # expect: 1025 260
print(int.from_bytes(b"\xff\xfe", "big", signed=True), int.from_bytes([1, 0]))  # expect: -2 256
print(int.from_bytes(bytes(10) + b"\x2a"), int.from_bytes(b""))  # expect: 42 0
n = 0xDEADBEEF
print(int.from_bytes(n.to_bytes(4, "little"), "little") == n)  # expect: True
for bad in [lambda: (256).to_bytes(1, "big"), lambda: (-1).to_bytes(2, "big")]:
    try:
        bad()
    except OverflowError as e:
        print(e)
# expect: int too big to convert
# expect: can't convert negative int to unsigned
try:
    (1).to_bytes(2, "middle")
except ValueError as e:
    print(e)  # expect: byteorder must be either 'little' or 'big'
try:
    sum([b"a", b"b"], b"")
except TypeError as e:
    print(e)  # expect: sum() can't sum bytes [use b''.join(seq) instead]
