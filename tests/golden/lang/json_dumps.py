# json.dumps: CPython's formatting of values, indent, separators, sort_keys, ensure_ascii, default.
import json
from collections import OrderedDict

print(json.dumps({"a": 1.0, "b": [1, 2, None, True], "c": "tab\there"}))
print(json.dumps({1: "int key", None: "n", 2.5: "f", False: "b"}), json.dumps((1, 2)))
print(json.dumps("é ☃ 😀"), json.dumps("é", ensure_ascii=False), json.dumps('q"\\\x01'))
print(json.dumps(1e16), json.dumps(0.1), json.dumps(-0.0), json.dumps(float("nan")), json.dumps(10**18))
print(json.dumps({"z": [1, {"y": []}], "a": {}}, indent=2, sort_keys=True))
print(json.dumps([1, [2]], indent="\t"), json.dumps([1, 2], indent=0))
print(json.dumps({"k": [1, 2]}, separators=(",", ":")), json.dumps([1, 2], separators=(";", "=")))
print(json.dumps({1, 2}, default=sorted), json.dumps({(1, 2): 3}, skipkeys=True), json.dumps(OrderedDict(b=1, a=2)))
# expect: {"a": 1.0, "b": [1, 2, null, true], "c": "tab\there"}
# expect: {"1": "int key", "null": "n", "2.5": "f", "false": "b"} [1, 2]
# expect: "\u00e9 \u2603 \ud83d\ude00" "é" "q\"\\\u0001"
# expect: 1e+16 0.1 -0.0 NaN 1000000000000000000
# expect: {
# expect:   "a": {},
# expect:   "z": [
# expect:     1,
# expect:     {
# expect:       "y": []
# expect:     }
# expect:   ]
# expect: }
# expect: [
# expect: 	1,
# expect: 	[
# expect: 		2
# expect: 	]
# expect: ] [
# expect: 1,
# expect: 2
# expect: ]
# expect: {"k":[1,2]} [1;2]
# expect: [1, 2] {} {"b": 1, "a": 2}
