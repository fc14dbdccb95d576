# `and` / `or` return one of their operands, not necessarily a bool.
print(0 or "default")  # expect: default
print("" or None)  # expect: None
print([] or [1])  # expect: [1]
print(3 and 4)  # expect: 4
print(0 and 4)  # expect: 0
print([] and 1)  # expect: []
print(None or 0 or "")  # expect:
print(1 or 1 / 0)  # expect: 1
print(not [])  # expect: True
print(not "x")  # expect: False
print(not None)  # expect: True
name = ""
print(name or "anonymous")  # expect: anonymous
limit = None
print(limit is not None and limit > 3)  # expect: False
print(repr(0.0 or ""))  # expect: ''
