# bytes as a sequence: indexing gives ints, slicing gives bytes; operators, hashing, truthiness.
data = b"pallas"
print(len(data), data[0], data[-1], data[1:4], data[::-2])  # expect: 6 112 115 b'all' b'sla'
print(list(data[:3]), [b for b in b"\x00\xff"])  # expect: [112, 97, 108] [0, 255]
print(b"ab" + b"cd", b"ab" * 3, 2 * b"-", b"x" * 0)  # expect: b'abcd' b'ababab' b'--' b''
print(b"all" in data, 97 in data, b"" in data, 0 in data)  # expect: True True True False
print(b"abc" == b"abc", b"abc" == "abc", b"a" != "a")  # expect: True False True
print(b"ab" < b"b", b"" < b"\x00", b"\xff" > b"z", b"ab" <= b"ab")  # expect: True True True True
print(sorted([b"b", b"ab", b"a"]), max(b"az"))  # expect: [b'a', b'ab', b'b'] 122
print(bool(b""), bool(b"\x00"), not b"x")  # expect: False True False
seen = {b"k": 1, (b"t", 2): 3}
print(seen[b"k"], seen[(b"t", 2)], b"k" in seen, "k" in seen)  # expect: 1 3 True False
print(hash(b"k") == hash(b"k"), len({b"a", b"a", b"b"}))  # expect: True 2
try:
    b"a" + "b"
except TypeError as e:
    print(e)  # expect: can't concat str to bytes
try:
    "a" in b"abc"
except TypeError as e:
    print(e)  # expect: a bytes-like object is required, not 'str'
try:
    data[6]
except IndexError as e:
    print(e)  # expect: index out of range
