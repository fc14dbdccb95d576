# re.compile: Pattern attributes and methods with pos/endpos, equality, escape, the compile cache.
import re

p = re.compile(r"(?P<word>[a-z]+)(\d)?")
print(p, p.pattern, p.groups, p.groupindex["word"], dict(p.groupindex))
print(p.match("abc1").groups(), p.match("ABC"), p.search("XYZ abc").span())
print(p.search("abc def", 2).group(), p.match("abc def", 4).group(), p.match("abc", 1, 2).group())
print(p.search("abcdef", 0, 3), p.fullmatch("abc9"), p.fullmatch("abcdef", 1, 3).span())
print(p.findall("ab1 cd ef3"), p.findall("ab1 cd ef3", 3), [m.pos for m in p.finditer("a b", 1)])
print(p.sub("<\\g<word>>", "ab1 cd"), p.subn("", "ab cd"), p.split("x1ab2y"))
print(re.compile("a") == re.compile("a"), re.compile("a") == re.compile("a", re.I))
print(re.compile(p) is p, isinstance(p, re.Pattern), type(p).__name__, {p: 1}[re.compile(p.pattern)])
print(re.escape("1+1=2? (yes) [maybe] a.b*c ^$ {x}"), re.escape("tab\there"))
print(re.match(re.escape("a.b"), "a.b").group(), re.match(re.escape("a.b"), "axb"))
print(re.compile(r"\d+").search("abc 123 def").group(), re.compile("").match("xyz").span())
m = p.search("zz ab7", pos=1, endpos=6)
print(m.pos, m.endpos, m.span(), m.re is p, m.expand(r"\2-\g<word>"))
# expect: re.compile('(?P<word>[a-z]+)(\\d)?') (?P<word>[a-z]+)(\d)? 2 1 {'word': 1}
# expect: ('abc', '1') None (4, 7)
# expect: c def b
# expect: <re.Match object; span=(0, 3), match='abc'> <re.Match object; span=(0, 4), match='abc9'> (1, 3)
# expect: [('ab', '1'), ('cd', ''), ('ef', '3')] [('cd', ''), ('ef', '3')] [1]
# expect: <ab> <cd> (' ', 2) ['', 'x', '1', '', 'ab', '2', '', 'y', None, '']
# expect: True False
# expect: True True Pattern 1
# expect: 1\+1=2\?\ \(yes\)\ \[maybe\]\ a\.b\*c\ \^\$\ \{x\} tab\	here
# expect: a.b None
# expect: 123 (0, 0)
# expect: 1 6 (1, 2) True -z
