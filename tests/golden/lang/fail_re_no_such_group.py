# Asking a match for a group the pattern does not define is an IndexError.
import re

m = re.match(r"(?P<year>\d{4})-(\d\d)", "2024-05")
print(m.group("year"), m[2], m.groups())  # expect: 2024 05 ('2024', '05')
print(m.group(3))  # error: IndexError: no such group
