# defaultdict's first argument is the factory: it must be callable (a common slip: a value).
from collections import defaultdict

ok = defaultdict(list)
print(ok["x"])  # expect: []
counts = defaultdict(0)  # error: TypeError: first argument must be callable or None
