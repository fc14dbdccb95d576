# Strings are immutable: build a new one instead.
name = "pallas"
print(name[0].upper() + name[1:])  # expect: Pallas
name[0] = "P"  # error: TypeError: 'str' object does not support item assignment
print(name)
