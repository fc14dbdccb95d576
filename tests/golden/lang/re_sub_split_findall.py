# re.sub/subn (templates, callables, count), split (groups, maxsplit), findall and finditer.
import re

print(re.sub(r"(\w+)@(\w+)", r"\2 at \1", "joe@home bob@work"))
print(re.sub(r"(?P<user>\w+)@(?P<host>\w+)", r"\g<host>:\g<user>:\g<0>", "joe@home"))
print(re.sub(r"\d+", lambda m: str(int(m.group()) * 2), "a1b22c333"))
print(re.sub("a", "-", "banana", count=2), re.subn("a", "-", "banana"))
print(re.sub(r"(a)|b", r"[\1]", "abc"), re.sub("x", r"\n", "axb") == "a\nb")
print(re.sub(r"\s+", " ", "  lots   of\tspace \n"))
print(re.split(r"\W+", "Words, words, words."))
print(re.split(r"(\W+)", "Words, words, words."))
print(re.split(r"\W+", "Words, words, words.", maxsplit=1))
print(re.split(r"[,;]\s*", "a, b;c,   d"))
print(re.findall(r"\d+", "12 drummers, 11 pipers, 10 lords"))
print(re.findall(r"(\w)=(\d)", "a=1 b=2 c"), re.findall(r"(\w)=", "a=1 b=2"))
print(re.findall(r"(a)|(b)", "ab"))
print([m.group() for m in re.finditer(r"[A-Z]\w*", "Alice met Bob in Paris")])
print([(m.start(), m.end()) for m in re.finditer(r"o", "foo boo")])
it = re.finditer(r"\d", "a1b2")
print(next(it).group(), next(it).group(), next(it, "done"))
words = "the cat sat on the mat".split()
print({w: len(re.findall(w, "the cat sat on the mat")) for w in words})
# expect: home at joe work at bob
# expect: home:joe:joe@home
# expect: a2b44c666
# expect: b-n-na ('b-n-n-', 3)
# expect: [a][]c True
# expect:  lots of space 
# expect: ['Words', 'words', 'words', '']
# expect: ['Words', ', ', 'words', ', ', 'words', '.', '']
# expect: ['Words', 'words, words.']
# expect: ['a', 'b', 'c', 'd']
# expect: ['12', '11', '10']
# expect: [('a', '1'), ('b', '2')] ['a', 'b']
# expect: [('a', ''), ('', 'b')]
# expect: ['Alice', 'Bob', 'Paris']
# expect: [(1, 2), (2, 3), (5, 6), (6, 7)]
# expect: 1 2 done
# expect: {'the': 2, 'cat': 1, 'sat': 1, 'on': 1, 'mat': 1}
