# sub() checks its replacement template: a group the pattern does not have is a re.error.
import re

print(re.sub(r"(\w+)=(\w+)", r"\2=\1", "a=1"))  # expect: 1=a
try:
    re.sub("a", r"\q", "a")
except re.error as e:
    print(e)  # expect: bad escape \q at position 0
print(re.sub(r"(\w)", r"<\2>", "ab"))  # error: re.error: invalid group reference 2 at position 2
