# Engine-specific: nested repeats that backtrack exponentially stop with an error (CPython hangs).
import re

print(re.match(r"(a+)+b", "aaab").span())  # expect: (0, 4)
print(re.match(r"(a+)+b", "a" * 40))  # error: RuntimeError: regular expression search stopped after
