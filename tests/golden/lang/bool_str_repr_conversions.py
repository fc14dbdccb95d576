# bool(), str() and repr() conversions.
print(bool(0), bool(2), bool(-0.0), bool("False"))  # expect: False True False True
print(bool(), bool(None), bool([0]))  # expect: False False True
print(str(42), str(4.0), str(True), str(None))  # expect: 42 4.0 True None
print(str("already"), repr("already"))  # expect: already 'already'
print(repr(3), repr(2.0), repr(None), repr(False))  # expect: 3 2.0 None False
print(str([1, "a"]), repr((1,)))  # expect: [1, 'a'] (1,)
print(str(1e-10), str(-1.0))  # expect: 1e-10 -1.0
print(len(str(12345)), str(12)[::-1])  # expect: 5 21
print(str(), "|")  # expect:  |
print(repr(float("inf")))  # expect: inf
