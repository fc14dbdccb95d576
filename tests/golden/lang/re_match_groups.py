# re: match/search/fullmatch and Match objects (groups, names, spans, lastindex, repr, indexing).
import re

m = re.match(r"(\w+) (\w+)", "Isaac Newton, physicist")
print(m)
print(m.group(0), m.group(1), m.group(2), m.group(1, 2), m[1], m[0])
print(m.groups(), m.span(), m.start(2), m.end(2), m.span(1), m.lastindex)
print(bool(m), m.string, m.pos, m.endpos)
m = re.search(r"(?P<key>\w+)=(?P<value>\d+)?", "set size= now")
print(m.groupdict(), m.groupdict(default="0"), m.groups("-"), m["key"], m.lastgroup)
print(m.start("value"), m.span(2), m.group("value"), m.lastindex)
print(re.match("b", "abc"), re.search("b", "abc").span())
print(re.fullmatch(r"\d+", "123"), re.fullmatch(r"\d+", "123a"))
print(re.match(r"((a)(b))", "ab").lastindex, re.match(r"(a)(b)?", "a").lastindex)
m = re.search("é+", "cafééé!")
print(m, m.span(), "cafééé!"[m.start():m.end()])
print(type(m).__name__, isinstance(m, re.Match), m.re.pattern)
try:
    m.group(5)
except IndexError as e:
    print("IndexError:", e)
# expect: <re.Match object; span=(0, 12), match='Isaac Newton'>
# expect: Isaac Newton Isaac Newton ('Isaac', 'Newton') Isaac Isaac Newton
# expect: ('Isaac', 'Newton') (0, 12) 6 12 (0, 5) 2
# expect: True Isaac Newton, physicist 0 23
# expect: {'key': 'size', 'value': None} {'key': 'size', 'value': '0'} ('size', '-') size key
# expect: -1 (-1, -1) None 1
# expect: None (1, 2)
# expect: <re.Match object; span=(0, 3), match='123'> None
# expect: 1 1
# expect: <re.Match object; span=(3, 6), match='ééé'> (3, 6) ééé
# expect: Match True é+
# expect: IndexError: no such group
