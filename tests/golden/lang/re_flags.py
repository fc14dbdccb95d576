# re flags: IGNORECASE, MULTILINE, DOTALL, VERBOSE, ASCII, inline and scoped flags, pattern repr.
import re

print(re.findall("hello", "Hello HELLO hello", re.IGNORECASE), re.findall("[a-c]+", "ABcab", re.I))
text = "first line\nsecond line\nthird"
print(re.findall(r"^\w+", text), re.findall(r"^\w+", text, re.MULTILINE))
print(re.findall(r"\w+$", text), re.findall(r"\w+$", text, re.M))
print(re.search("line.second", text), re.search("line.second", text, re.DOTALL).span())
number = re.compile(r"""
    (?P<int>\d+)      # integer part
    (?:\.(?P<frac>\d*))?  # optional fraction
""", re.VERBOSE)
print(number.match("3.14").groupdict(), number.match("42").groupdict())
print(re.findall(r"(?i)abc", "ABC abc"), re.findall(r"a(?i:b)c", "aBc abc aBC"))
print(re.match(r"(?s).+", "a\nb").group() == "a\nb", re.match(r"(?x) a b c", "abc").group())
print(re.findall(r"\w+", "naïve café"), re.findall(r"\w+", "naïve café", re.ASCII))
p = re.compile("ab", re.I | re.M)
print(p, p.flags, re.compile("ab").flags, re.compile("(?i)ab"))
print(re.I, re.IGNORECASE == re.I, re.M | re.S, re.X, re.A, re.NOFLAG)
print(re.compile("x", re.DOTALL | re.VERBOSE), re.compile("x", re.ASCII))
# expect: ['Hello', 'HELLO', 'hello'] ['ABcab']
# expect: ['first'] ['first', 'second', 'third']
# expect: ['third'] ['line', 'line', 'third']
# expect: None (6, 17)
# expect: {'int': '3', 'frac': '14'} {'int': '42', 'frac': None}
# expect: ['ABC', 'abc'] ['aBc', 'abc']
# expect: True abc
# expect: ['naïve', 'café'] ['na', 've', 'caf']
# expect: re.compile('ab', re.IGNORECASE|re.MULTILINE) 42 32 re.compile('(?i)ab', re.IGNORECASE)
# expect: re.IGNORECASE True re.MULTILINE|re.DOTALL re.VERBOSE re.ASCII re.NOFLAG
# expect: re.compile('x', re.DOTALL|re.VERBOSE) re.compile('x', re.ASCII)
