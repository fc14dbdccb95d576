# re pattern syntax: classes, escapes, greedy and lazy repeats, backreferences, lookarounds, anchors.
import re

print(re.findall(r"[a-c]+|[^\s\d]", "abcd 12x"), re.findall(r"[\d.\-]+", "v1.2-3 and 4"))
print(re.findall(r"\bcat\b", "cat concat cat."), re.findall(r"\Bcat", "cat concat"))
print(re.match(r"<.*>", "<a><b>").group(), re.match(r"<.*?>", "<a><b>").group())
print(re.findall(r"a{2}", "aaaaa"), re.findall(r"a{2,3}", "aaaaa"), re.findall(r"a{2,}?", "aaaaa"))
print(re.findall(r"x{,2}", "xxx"), re.match(r"a{,}", "aaa").group(), re.findall(r"x{a}", "x{a}"))
print(re.search(r"(\w+) \1", "hello hello world").group(), re.search(r"(?P<w>\w)(?P=w)", "abccd").group())
print(re.findall(r"\d+(?=px)", "10px 20em 30px"), re.findall(r"\d+(?!px|\d)", "10px 20em 30px"))
print(re.findall(r"(?<=\$)\d+", "cost: $30, €40, $5"), re.findall(r"(?<!\$)\b\d+", "$30 40 $5 6"))
print(re.match(r"(a)?(?(1)b|c)", "ab").group(), re.match(r"(a)?(?(1)b|c)", "c").group())
print(re.fullmatch(r"\A\d+\Z", "42") is not None, re.search(r"\d$", "a1\n").group())
print(re.match(r"(a|ab)(c|bcd)(d*)", "abcd").groups(), re.match(r"(?:a|b)+", "abba!").group())
print(re.findall(r"\x41|\u00e9|\101|\t", "Aé\t"), re.findall(r"[\]\\^-]", "a]\\^-"))
print(re.match(r"(?#comment)a(?>b+)c", "abbc").group(), re.match(r"a++b", "aab").group())
print(re.match(r"(\d+)-(\d+)", "10-20").group(2, 1), re.match(r"((a)|b)+", "ab").groups())
print(re.findall(r"[^aeiou\W]+", "rhythm and blues"), re.findall(r"\S+", " a  bc "))
print(re.split(r"\s*,\s*", "x , y,z"), re.sub(r"(?m)^", "> ", "one\ntwo"))
# expect: ['abc', 'd', 'x'] ['1.2-3', '4']
# expect: ['cat', 'cat'] ['cat']
# expect: <a><b> <a>
# expect: ['aa', 'aa'] ['aaa', 'aa'] ['aa', 'aa']
# expect: ['xx', 'x', ''] aaa ['x{a}']
# expect: hello hello cc
# expect: ['10', '30'] ['20']
# expect: ['30', '5'] ['40', '6']
# expect: ab c
# expect: True 1
# expect: ('a', 'bcd', '') abba
# expect: ['A', 'é', '\t'] [']', '\\', '^', '-']
# expect: abbc aab
# expect: ('20', '10') ('b', 'a')
# expect: ['rhythm', 'nd', 'bl', 's'] ['a', 'bc']
# expect: ['x', 'y', 'z'] > one
# expect: > two
