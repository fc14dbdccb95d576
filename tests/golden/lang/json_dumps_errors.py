# json.dumps errors: unserializable values and keys, circular references, allow_nan=False.
import json

for bad in [{1, 2}, {(1, 2): 3}]:
    try:
        json.dumps(bad)
    except TypeError as e:
        print(e)
loop = []
loop.append(loop)
try:
    json.dumps(loop)
except ValueError as e:
    print(e)
try:
    json.dumps(float("inf"), allow_nan=False)
except ValueError as e:
    print(e)
# expect: Object of type set is not JSON serializable
# expect: keys must be str, int, float, bool or None, not tuple
# expect: Circular reference detected
# expect: Out of range float values are not JSON compliant
