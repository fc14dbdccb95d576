# repr() picks the quote character and escapes what it must.
print(repr("plain"))  # expect: 'plain'
print(repr("it's"))  # expect: "it's"
print(repr('say "hi"'))  # expect: 'say "hi"'
print(repr("it's \"x\""))  # expect: 'it\'s "x"'
print(repr("tab\there"))  # expect: 'tab\there'
print(repr("new\nline"))  # expect: 'new\nline'
print(repr("back\\slash"))  # expect: 'back\\slash'
print(repr(""))  # expect: ''
print(["a", 'b"c', "d'e"])  # expect: ['a', 'b"c', "d'e"]
print(str("x"), repr("x"))  # expect: x 'x'
print(repr("\x07"))  # expect: '\x07'
