# json.loads: values, escapes, hooks, and JSONDecodeError positions as CPython reports them.
import json

doc = '{"name": "x\\u00e9\\ud83d\\ude00", "vals": [1, 2.5, -3e2, true, false, null], "n": {}}'
print(json.loads(doc))
print(json.loads("NaN"), json.loads("-Infinity"), json.loads(" 5 "), json.loads("1E3"), json.loads('"\\/"'))
print(json.loads('{"a": 1, "a": 2}'), json.loads('[1.5, 2]', parse_float=str, parse_int=float))
print(json.loads('{"b": 1, "a": {"c": 2}}', object_hook=sorted), json.loads('{"k": 1}', object_pairs_hook=list))
data = {"rows": [[1, 2], [3, 4]], "label": "grid", "ok": True, "scale": 0.5}
print(json.loads(json.dumps(data)) == data, json.loads(json.dumps(data, indent=2)) == data)
for text in ["", "[1,]", '{"a":1,}', "{a:1}", '{"a" 1}', "[1 2]", '"abc', '"\\x"', "[1] x",
             '"a\nb"', "01", '"\\u12"', "[1,\n  2,\n x]"]:
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        print(repr(text), "->", e, (e.msg, e.pos, e.lineno, e.colno))
print(issubclass(json.JSONDecodeError, ValueError))
# expect: {'name': 'xé😀', 'vals': [1, 2.5, -300.0, True, False, None], 'n': {}}
# expect: nan -inf 5 1000.0 /
# expect: {'a': 2} ['1.5', 2.0]
# expect: ['a', 'b'] [('k', 1)]
# expect: True True
# expect: '' -> Expecting value: line 1 column 1 (char 0) ('Expecting value', 0, 1, 1)
# expect: '[1,]' -> Expecting value: line 1 column 4 (char 3) ('Expecting value', 3, 1, 4)
# expect: '{"a":1,}' -> Expecting property name enclosed in double quotes: line 1 column 8 (char 7) ('Expecting property name enclosed in double quotes', 7, 1, 8)
# expect: '{a:1}' -> Expecting property name enclosed in double quotes: line 1 column 2 (char 1) ('Expecting property name enclosed in double quotes', 1, 1, 2)
# expect: '{"a" 1}' -> Expecting ':' delimiter: line 1 column 6 (char 5) ("Expecting ':' delimiter", 5, 1, 6)
# expect: '[1 2]' -> Expecting ',' delimiter: line 1 column 4 (char 3) ("Expecting ',' delimiter", 3, 1, 4)
# expect: '"abc' -> Unterminated string starting at: line 1 column 1 (char 0) ('Unterminated string starting at', 0, 1, 1)
# expect: '"\\x"' -> Invalid \escape: line 1 column 2 (char 1) ('Invalid \\escape', 1, 1, 2)
# expect: '[1] x' -> Extra data: line 1 column 5 (char 4) ('Extra data', 4, 1, 5)
# expect: '"a\nb"' -> Invalid control character at: line 1 column 3 (char 2) ('Invalid control character at', 2, 1, 3)
# expect: '01' -> Extra data: line 1 column 2 (char 1) ('Extra data', 1, 1, 2)
# expect: '"\\u12"' -> Invalid \uXXXX escape: line 1 column 3 (char 2) ('Invalid \\uXXXX escape', 2, 1, 3)
# expect: '[1,\n  2,\n x]' -> Expecting value: line 3 column 2 (char 10) ('Expecting value', 10, 3, 2)
# expect: True
