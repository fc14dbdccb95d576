# A failing assert without a message.
block = (8, 100)
print("checking", block)  # expect: checking (8, 100)
assert block[0] % 8 == 0
assert block[1] % 128 == 0  # error: AssertionError
print("not reached")
