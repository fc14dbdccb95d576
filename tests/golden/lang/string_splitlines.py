# splitlines drops line endings; split("\n") keeps an empty last piece.
text = "first\nsecond\n\nfourth\n"
print(text.splitlines())  # expect: ['first', 'second', '', 'fourth']
print(text.split("\n"))  # expect: ['first', 'second', '', 'fourth', '']
print("no newline".splitlines())  # expect: ['no newline']
print("".splitlines())  # expect: []
for number, line in enumerate(text.splitlines(), start=1):
    if line:
        print(f"{number}: {line}")
# expect: 1: first
# expect: 2: second
# expect: 4: fourth
