# Adjacent string literals are joined at parse time, also across lines in parentheses.
greeting = "Hello, " 'world'
print(greeting)  # expect: Hello, world
message = (
    "block shape must divide "
    "the array shape; "
    f"got {3 * 5}"
)
print(message)  # expect: block shape must divide the array shape; got 15
print(len("ab" "cd"))  # expect: 4
