# A malformed pattern is a re.error with CPython's message and position, catchable or not.
import re

try:
    re.compile("[a-")
except re.error as e:
    print(e.msg, e.pos, e.pattern)  # expect: unterminated character set 0 [a-
try:
    re.search("a**", "aaa")
except re.error as e:
    print(e)  # expect: multiple repeat at position 2
print(re.findall(r"(ab)+", "abab"))  # expect: ['ab']
digits = re.compile(r"(\d+")  # error: re.error: missing ), unterminated subpattern at position 0
