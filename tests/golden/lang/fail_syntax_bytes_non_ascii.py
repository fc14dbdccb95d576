# A bytes literal may hold only ASCII characters; non-ASCII bytes need \x escapes.
ok = b"caf\xc3\xa9"
bad = b"café"  # error: bytes can only contain ASCII literal characters
print(ok, bad)
