# A malformed JSON document is a json.decoder.JSONDecodeError (a ValueError) naming the place.
import json

print(json.loads('{"ok": [1, 2]}'))  # expect: {'ok': [1, 2]}
config = json.loads('{"block": 128,}')  # error: json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 15 (char 14)
