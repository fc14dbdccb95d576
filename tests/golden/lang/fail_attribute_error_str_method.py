# A string method that does not exist.
s = "abc"
print(s.upper())  # expect: ABC
print(s.nope())  # error: AttributeError: 'str' object has no attribute 'nope'
print("not reached")
