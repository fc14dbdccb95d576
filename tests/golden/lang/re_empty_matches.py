# re: empty matches in sub, split, findall and finditer follow Python 3.7+ (allowed next to a match).
import re

print(re.sub("x*", "-", "abxd"), re.sub("x*", "-", ""), re.subn(r"\b", "|", "hi yo"))
print(re.split(r"\b", "a b"), re.split("x*", "axbc"), re.split("", "abc"))
print(re.findall(r"\w*", "ab cd"), re.findall("", "ab"), re.findall(r"a|", "bab"))
print([m.span() for m in re.finditer(r"\d*", "1a22")])
print(re.sub("(?=b)", "^", "abab"), re.sub("$", "!", "line\n"), re.sub("a*?", "-", "baac"))
print(re.split(r"(?<=,)", "a,b,c"), re.split(r"(,)|;", "a,b;c"))
# expect: -a-b--d- - ('|hi| |yo|', 4)
# expect: ['', 'a', ' ', 'b', ''] ['', 'a', '', 'b', 'c', ''] ['', 'a', 'b', 'c', '']
# expect: ['ab', '', 'cd', ''] ['', '', ''] ['', 'a', '', '']
# expect: [(0, 1), (1, 1), (2, 4), (4, 4)]
# expect: a^ba^b line!
# expect: ! -b-----c-
# expect: ['a,', 'b,', 'c'] ['a', ',', 'b', None, 'c']
