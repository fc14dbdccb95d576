// Unit tests of the methods of str, list, tuple, dict and set, str.format and the `%`
// operator (eval/methods*.cpp, eval/str_format.cpp), run as small programs.
// Expected outputs and messages are CPython 3.11's.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "unit/eval/run_helper.h"

namespace pz::eval {
namespace {

// What `program` printed, followed by the message of the error it raised, if any.
std::string Py(std::string_view program) {
  testing::RunResult result = testing::RunProgram(program);
  return result.output + result.error;
}

TEST(Methods, StrSplitFamilyMatchesPython) {
  EXPECT_EQ(Py("print('a b  c'.split(), '  a b '.split(None, 1), 'a,b,,c'.split(','), "
               "'a,b,c'.split(',', 1))\n"),
            "['a', 'b', 'c'] ['a', 'b '] ['a', 'b', '', 'c'] ['a', 'b,c']\n");
  EXPECT_EQ(Py("print('a,b,c'.rsplit(',', 1), '  a b  c '.rsplit(None, 1), ''.split(), "
               "''.split(','), 'a b'.rsplit())\n"),
            "['a,b', 'c'] ['  a b', 'c'] [] [''] ['a', 'b']\n");
  EXPECT_EQ(Py("print('a\\nb\\r\\nc\\n'.splitlines(), 'a\\nb\\r\\nc\\n'.splitlines(True), "
               "''.splitlines())\n"),
            "['a', 'b', 'c'] ['a\\n', 'b\\r\\n', 'c\\n'] []\n");
  EXPECT_EQ(Py("'a'.split('')\n"), "ValueError: empty separator");
  EXPECT_EQ(Py("'a'.split(1)\n"), "TypeError: must be str or None, not int");
  EXPECT_EQ(Py("'a'.split(',', 1, 2)\n"), "TypeError: split() takes at most 2 arguments (3 given)");
  EXPECT_EQ(Py("'a'.split(foo=1)\n"),
            "TypeError: 'foo' is an invalid keyword argument for split()");
  EXPECT_EQ(Py("print('a-b-c'.split(sep='-', maxsplit=1))\n"), "['a', 'b-c']\n");
  EXPECT_EQ(Py("print('a,b'.partition(','), 'ab'.partition('x'), 'a,b,c'.rpartition(','), "
               "'ab'.rpartition('x'))\n"),
            "('a', ',', 'b') ('ab', '', '') ('a,b', ',', 'c') ('', '', 'ab')\n");
  EXPECT_EQ(
      Py("print('-'.join(['a', 'b']), ''.join('xyz'), ', '.join(str(i) for i in range(3)))\n"),
      "a-b xyz 0, 1, 2\n");
  EXPECT_EQ(Py("'-'.join([1])\n"), "TypeError: sequence item 0: expected str instance, int found");
}

TEST(Methods, StrStripReplaceAndSearch) {
  EXPECT_EQ(Py("print(repr(' \\t a \\n'.strip()), 'xxaxx'.strip('x'), 'xxaxx'.lstrip('x'), "
               "'xxaxx'.rstrip('x'), 'abcba'.strip('ab'))\n"),
            "'a' a axx xxa c\n");
  EXPECT_EQ(
      Py("print('aaa'.replace('a', 'b', 2), 'ab'.replace('', '-'), 'hello'.replace('l', 'L'))\n"),
      "bba -a-b- heLLo\n");
  EXPECT_EQ(Py("print('abcabc'.find('c', -2), 'abc'.find('d'), 'abcabc'.rfind('b', 0, 4), "
               "'abc'.find('', 5), 'abc'.find('', 3))\n"),
            "5 -1 1 -1 3\n");
  EXPECT_EQ(Py("print('abc'.count(''), 'abc'.count('', 1), 'aaaa'.count('aa'), 'héllo'.find('l'), "
               "'héllo'.index('o'))\n"),
            "4 3 2 2 4\n");
  EXPECT_EQ(Py("'abc'.index('d')\n"), "ValueError: substring not found");
  EXPECT_EQ(Py("print('abc'.startswith(('x', 'ab')), 'abc'.startswith('b', 1), 'abc'.endswith('b', "
               "0, 2), 'abc'.startswith('', 3), 'abc'.startswith('', 4))\n"),
            "True True True True False\n");
  EXPECT_EQ(Py("'abc'.startswith(1)\n"),
            "TypeError: startswith first arg must be str or a tuple of str, not int");
  EXPECT_EQ(Py("print('prefix_x'.removeprefix('prefix_'), 'x.py'.removesuffix('.py'))\n"), "x x\n");
}

TEST(Methods, StrCaseAndPadding) {
  EXPECT_EQ(Py("print('Hello'.upper(), 'Hello'.lower(), 'hello world'.title(), \"they're "
               "bill's\".title(), 'aBC dEF'.capitalize())\n"),
            "HELLO hello Hello World They'Re Bill'S Abc def\n");
  EXPECT_EQ(Py("print('123'.isdigit(), ''.isdigit(), 'ab'.isalpha(), 'a1'.isalnum(), ' "
               "\\t'.isspace(), 'AB1'.isupper(), 'ab'.islower(), '1'.islower())\n"),
            "True False True True True True True False\n");
  EXPECT_EQ(Py("print(repr('ab'.center(7, '*')), repr('ab'.center(6)), repr('abc'.center(6, '*')), "
               "repr('ab'.ljust(4)), repr('ab'.rjust(4, '0')))\n"),
            "'***ab**' '  ab  ' '*abc**' 'ab  ' '00ab'\n");
  EXPECT_EQ(Py("print('-42'.zfill(6), '+'.zfill(3), '7'.zfill(3), 'abc'.zfill(2))\n"),
            "-00042 +00 007 abc\n");
  EXPECT_EQ(Py("'ab'.ljust(4, 'xy')\n"),
            "TypeError: The fill character must be exactly one character long");
}

TEST(Methods, StrFormatMethodSupportsTheMiniLanguage) {
  EXPECT_EQ(
      Py("print('{} {}'.format(1, 'a'), '{1}{0}'.format('a', 'b'), '{x}-{y}'.format(x=1, y=2))\n"),
      "1 a ba 1-2\n");
  EXPECT_EQ(Py("print('{:5}|{:<5}|{:^5}|{:>5}'.format(1, 2, 'ab', 'c'), '{:.3f}'.format(3.14159), "
               "'{:08.2f}'.format(-3.5))\n"),
            "    1|2    | ab  |    c 3.142 -0003.50\n");
  EXPECT_EQ(Py("print('{!r} {!s}'.format('a', 'b'), '{:{w}.{p}f}'.format(3.14159, w=8, p=2), "
               "'{{}}'.format())\n"),
            "'a' b     3.14 {}\n");
  EXPECT_EQ(Py("print('{0[1]} {a.real}'.format([1, 2], a=3), '{}'.format(True), "
               "'{:d}'.format(True), '{:>6}'.format(True))\n"),
            "2 3 True 1      1\n");
  EXPECT_EQ(Py("print('{:x} {:b} {:,} {:e} {:%}'.format(255, 5, 1234567, 12345.678, 0.25))\n"),
            "ff 101 1,234,567 1.234568e+04 25.000000%\n");
  EXPECT_EQ(Py("'{'.format()\n"), "ValueError: Single '{' encountered in format string");
  EXPECT_EQ(Py("'}'.format()\n"), "ValueError: Single '}' encountered in format string");
  EXPECT_EQ(Py("'{0'.format()\n"), "ValueError: expected '}' before end of string");
  EXPECT_EQ(Py("'{}'.format()\n"),
            "IndexError: Replacement index 0 out of range for positional args tuple");
  EXPECT_EQ(
      Py("'{0}{}'.format(1, 2)\n"),
      "ValueError: cannot switch from manual field specification to automatic field numbering");
  EXPECT_EQ(
      Py("'{}{0}'.format(1, 2)\n"),
      "ValueError: cannot switch from automatic field numbering to manual field specification");
  EXPECT_EQ(Py("'{0!x}'.format(1)\n"), "ValueError: Unknown conversion specifier x");
  EXPECT_EQ(Py("'{:x}'.format('a')\n"),
            "ValueError: Unknown format code 'x' for object of type 'str'");
  EXPECT_EQ(Py("'{:d}'.format(1.5)\n"),
            "ValueError: Unknown format code 'd' for object of type 'float'");
  EXPECT_EQ(Py("'{a}'.format()\n"), "KeyError: 'a'");
  EXPECT_EQ(Py("'{:5}'.format(None)\n"),
            "TypeError: unsupported format string passed to NoneType.__format__");
}

TEST(Methods, PercentFormattingMatchesPython) {
  EXPECT_EQ(Py("print('%5.2f|%-4d|%s|%r|%x|%o|%e|%c|%%' % (3.14159, 42, 'hi', 'hi', 255, 8, "
               "12345.678, 65))\n"),
            " 3.14|42  |hi|'hi'|ff|10|1.234568e+04|A|%\n");
  EXPECT_EQ(Py("print('%(a)s %(b)d' % {'a': 1, 'b': 2}, '%s' % [1, 2], '%s' % (1,), '%*d' % (5, "
               "3), '%d' % 3.7, '%s' % None)\n"),
            "1 2 [1, 2] 1     3 3 None\n");
  EXPECT_EQ(Py("print('abc' % (), 'abc' % [], 'abc' % {}, '%c' % 'x', '%i %u' % (1, 2), '%.1f%%' % "
               "12.34)\n"),
            "abc abc abc x 1 2 12.3%\n");
  EXPECT_EQ(Py("'%d %d' % (1,)\n"), "TypeError: not enough arguments for format string");
  EXPECT_EQ(Py("'%d' % (1, 2)\n"),
            "TypeError: not all arguments converted during string formatting");
  EXPECT_EQ(Py("'abc' % 5\n"), "TypeError: not all arguments converted during string formatting");
  EXPECT_EQ(Py("'%s %s' % [1, 2]\n"), "TypeError: not enough arguments for format string");
  EXPECT_EQ(Py("'%d' % 'a'\n"), "TypeError: %d format: a real number is required, not str");
  EXPECT_EQ(Py("'%c' % 'ab'\n"), "TypeError: %c requires int or char");
  EXPECT_EQ(Py("'%z' % 1\n"), "ValueError: unsupported format character 'z' (0x7a) at index 1");
  EXPECT_EQ(Py("'%' % ()\n"), "ValueError: incomplete format");
  EXPECT_EQ(Py("'%f' % 'a'\n"), "TypeError: must be real number, not str");
  EXPECT_EQ(Py("'%x' % 1.5\n"), "TypeError: %x format: an integer is required, not float");
}

TEST(Methods, ListMethodsMutateInPlace) {
  EXPECT_EQ(Py("a = [1, 2]; a.append(3); a.extend((4, 5)); a.insert(0, 0); a.insert(-1, 9); "
               "a.insert(100, 7); print(a)\n"),
            "[0, 1, 2, 3, 4, 9, 5, 7]\n");
  EXPECT_EQ(Py("a = [1, 2, 3]; print(a.pop(), a.pop(0), a)\n"), "3 1 [2]\n");
  EXPECT_EQ(Py("[].pop()\n"), "IndexError: pop from empty list");
  EXPECT_EQ(Py("[1].pop(5)\n"), "IndexError: pop index out of range");
  EXPECT_EQ(Py("a = [1, 2, 1]; a.remove(1); print(a, a.index(1), a.count(1), [1, 2, 3, 2].index(2, "
               "2))\n"),
            "[2, 1] 1 1 3\n");
  EXPECT_EQ(Py("[1].remove(3)\n"), "ValueError: list.remove(x): x not in list");
  EXPECT_EQ(Py("[1].index(2)\n"), "ValueError: 2 is not in list");
  EXPECT_EQ(Py("a = [3, 1, 2]; a.sort(); print(a); a.sort(reverse=True); print(a); a.reverse(); "
               "print(a)\n"),
            "[1, 2, 3]\n[3, 2, 1]\n[1, 2, 3]\n");
  EXPECT_EQ(Py("a = ['bb', 'a', 'ccc']; a.sort(key=len); print(a)\n"), "['a', 'bb', 'ccc']\n");
  EXPECT_EQ(Py("a = [1, 2]; b = a.copy(); b.append(3); a.clear(); print(a, b)\n"),
            "[] [1, 2, 3]\n");
  EXPECT_EQ(Py("a = [1]; a.extend(a); print(a)\n"), "[1, 1]\n");
  EXPECT_EQ(Py("[].append()\n"), "TypeError: list.append() takes exactly one argument (0 given)");
  EXPECT_EQ(Py("[].append(1, 2)\n"),
            "TypeError: list.append() takes exactly one argument (2 given)");
  EXPECT_EQ(Py("[].sort(1)\n"), "TypeError: sort() takes no positional arguments");
  EXPECT_EQ(Py("[].sort(foo=1)\n"), "TypeError: 'foo' is an invalid keyword argument for sort()");
  EXPECT_EQ(Py("[1, 'a'].sort()\n"),
            "TypeError: '<' not supported between instances of 'str' and 'int'");
  EXPECT_EQ(Py("print((1, 2, 1).count(1), (1, 2).index(2))\n"), "2 1\n");
  EXPECT_EQ(Py("(1,).index(2)\n"), "ValueError: tuple.index(x): x not in tuple");
}

TEST(Methods, DictMethodsAndViews) {
  EXPECT_EQ(Py("d = {'a': 1, 'b': 2}; print(d.keys(), d.values(), d.items())\n"),
            "dict_keys(['a', 'b']) dict_values([1, 2]) dict_items([('a', 1), ('b', 2)])\n");
  EXPECT_EQ(
      Py("d = {'a': 1}; k = d.keys(); d['b'] = 2; print(k, len(k), 'b' in k, list(d.items()))\n"),
      "dict_keys(['a', 'b']) 2 True [('a', 1), ('b', 2)]\n");
  EXPECT_EQ(Py("d = {'a': 1}; print(d.get('a'), d.get('z'), d.get('z', 0), d.setdefault('a', 5), "
               "d.setdefault('b', 7), d)\n"),
            "1 None 0 1 7 {'a': 1, 'b': 7}\n");
  EXPECT_EQ(Py("d = {'a': 1, 'b': 2}; print(d.pop('a'), d.pop('z', None), d.popitem(), d)\n"),
            "1 None ('b', 2) {}\n");
  EXPECT_EQ(Py("{}.pop('k')\n"), "KeyError: 'k'");
  EXPECT_EQ(Py("{}.popitem()\n"), "KeyError: 'popitem(): dictionary is empty'");
  EXPECT_EQ(Py("d = {'a': 1}; d.update({'b': 2}, c=3); d.update([('d', 4)]); print(d)\n"),
            "{'a': 1, 'b': 2, 'c': 3, 'd': 4}\n");
  EXPECT_EQ(Py("d = {'a': 1}; e = d.copy(); e['b'] = 2; d.clear(); print(d, e)\n"),
            "{} {'a': 1, 'b': 2}\n");
  EXPECT_EQ(Py("for k, v in {'x': 1, 'y': 2}.items(): print(k, v)\n"), "x 1\ny 2\n");
  EXPECT_EQ(Py("print(sorted({'b': 1, 'a': 2}.values()), list({'a': 1}.keys()))\n"),
            "[1, 2] ['a']\n");
  EXPECT_EQ(Py("d = {'a': 1}\nfor k in d.keys():\n    d['z'] = 1\n"),
            "RuntimeError: dictionary changed size during iteration");
  EXPECT_EQ(Py("{}.get()\n"), "TypeError: get expected at least 1 argument, got 0");
  EXPECT_EQ(Py("{}.pop()\n"), "TypeError: pop expected at least 1 argument, got 0");
  EXPECT_EQ(Py("{}.update(1, 2)\n"), "TypeError: update expected at most 1 argument, got 2");
}

TEST(Methods, SetMethods) {
  EXPECT_EQ(Py("s = {1, 2}; s.add(3); s.discard(9); s.remove(1); print(sorted(s), len(s))\n"),
            "[2, 3] 2\n");
  EXPECT_EQ(Py("set().remove(1)\n"), "KeyError: 1");
  EXPECT_EQ(Py("set().pop()\n"), "KeyError: 'pop from an empty set'");
  EXPECT_EQ(Py("s = {1}; print(s.pop(), s)\n"), "1 set()\n");
  EXPECT_EQ(Py("a = {1, 2, 3}; print(sorted(a.union([4], (5,))), sorted(a.intersection({2, 3, "
               "9})), sorted(a.difference([1])), sorted(a.symmetric_difference({3, 4})))\n"),
            "[1, 2, 3, 4, 5] [2, 3] [2, 3] [1, 2, 4]\n");
  EXPECT_EQ(Py("a = {1, 2}; print(a.issubset([1, 2, 3]), a.issuperset({1}), a.isdisjoint({3}), {1, "
               "5}.issubset({1}))\n"),
            "True True True False\n");
  EXPECT_EQ(Py("a = {1, 2}; a.update([3], {4}); b = a.copy(); a.clear(); print(a, sorted(b))\n"),
            "set() [1, 2, 3, 4]\n");
  EXPECT_EQ(
      Py("a = {1, 2, 3}; a.intersection_update({1, 2}); a.difference_update([1]); print(a)\n"),
      "{2}\n");
}

TEST(Methods, IntAndFloatMethods) {
  EXPECT_EQ(Py("print((255).bit_length(), (-8).bit_length(), (0).bit_length(), (7).bit_count(), "
               "(2.0).is_integer(), (2.5).is_integer())\n"),
            "8 4 0 3 True False\n");
}

}  // namespace
}  // namespace pz::eval
