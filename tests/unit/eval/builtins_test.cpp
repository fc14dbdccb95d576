// Unit tests of the builtin functions and type constructors (eval/builtins*.cpp,
// eval/builtin_types.cpp), run as small programs.
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

TEST(Builtins, PrintUsesSepAndEnd) {
  EXPECT_EQ(Py("print(1, 'a', None, sep='-', end='!\\n')\n"), "1-a-None!\n");
  EXPECT_EQ(Py("print()\n"), "\n");
  EXPECT_EQ(Py("print('a', 'b', sep=None, end=None)\n"), "a b\n");
  EXPECT_EQ(Py("print(1, 2, sep='')\n"), "12\n");
  EXPECT_EQ(Py("print(foo=1)\n"), "TypeError: 'foo' is an invalid keyword argument for print()");
  EXPECT_EQ(Py("print(1, sep=2)\n"), "TypeError: sep must be None or a string, not int");
}

TEST(Builtins, LenAndReprFollowCPython) {
  EXPECT_EQ(Py("print(len('héllo'), len([1, 2]), len({'a': 1}), len(range(0, 10, 3)))\n"),
            "5 2 1 4\n");
  EXPECT_EQ(Py("print(repr('a\\n'), repr(1.0), repr([None]))\n"), "'a\\n' 1.0 [None]\n");
  EXPECT_EQ(Py("len(1, 2)\n"), "TypeError: len() takes exactly one argument (2 given)");
  EXPECT_EQ(Py("len(x=1)\n"), "TypeError: len() takes no keyword arguments");
  EXPECT_EQ(Py("len(5)\n"), "TypeError: object of type 'int' has no len()");
}

TEST(Builtins, RangeConstructorValidatesArguments) {
  EXPECT_EQ(Py("print(list(range(5)), list(range(2, 10, 3)), list(range(5, 0, -2)), list(range(3, "
               "1)))\n"),
            "[0, 1, 2, 3, 4] [2, 5, 8] [5, 3, 1] []\n");
  EXPECT_EQ(Py("range(1, 2, 0)\n"), "ValueError: range() arg 3 must not be zero");
  EXPECT_EQ(Py("range(1.0)\n"), "TypeError: 'float' object cannot be interpreted as an integer");
  EXPECT_EQ(Py("range()\n"), "TypeError: range expected at least 1 argument, got 0");
  EXPECT_EQ(Py("range(1, 2, 3, 4)\n"), "TypeError: range expected at most 3 arguments, got 4");
}

TEST(Builtins, EnumerateAndZipAreLazyAndStopAtShortest) {
  EXPECT_EQ(Py("print(list(enumerate('ab')), list(enumerate(['x', 'y'], start=5)))\n"),
            "[(0, 'a'), (1, 'b')] [(5, 'x'), (6, 'y')]\n");
  EXPECT_EQ(Py("print(list(zip([1, 2, 3], 'ab')), list(zip()), list(zip([1])))\n"),
            "[(1, 'a'), (2, 'b')] [] [(1,)]\n");
  EXPECT_EQ(Py("print(list(zip(range(10**9), 'abc')))\n"), "[(0, 'a'), (1, 'b'), (2, 'c')]\n");
  EXPECT_EQ(Py("list(zip([1, 2], [3], strict=True))\n"),
            "ValueError: zip() argument 2 is shorter than argument 1");
  EXPECT_EQ(Py("list(zip([1], [3, 4], strict=True))\n"),
            "ValueError: zip() argument 2 is longer than argument 1");
  EXPECT_EQ(Py("list(zip([1], [2], [3, 4], strict=True))\n"),
            "ValueError: zip() argument 3 is longer than arguments 1-2");
  EXPECT_EQ(Py("zip(1)\n"), "TypeError: 'int' object is not iterable");
  EXPECT_EQ(Py("e = enumerate([7, 8]); print(next(e), next(e), next(e, 'done'))\n"),
            "(0, 7) (1, 8) done\n");
}

TEST(Builtins, MinAndMaxHandleKeyDefaultAndErrors) {
  EXPECT_EQ(Py("print(min(3, 1, 2), max([3, 1, 2]), max('abc'), min([4, 5], key=lambda x: -x))\n"),
            "1 3 c 5\n");
  EXPECT_EQ(Py("print(max([], default=0), min((), default=None), max([1, 3, 3.0], key=None))\n"),
            "0 None 3\n");
  EXPECT_EQ(Py("print(max([(1, 'b'), (1, 'a')]), min(['bb', 'a', 'ccc'], key=len))\n"),
            "(1, 'b') a\n");
  EXPECT_EQ(Py("max([])\n"), "ValueError: max() arg is an empty sequence");
  EXPECT_EQ(Py("min(())\n"), "ValueError: min() arg is an empty sequence");
  EXPECT_EQ(Py("max()\n"), "TypeError: max expected at least 1 argument, got 0");
  EXPECT_EQ(Py("max(1)\n"), "TypeError: 'int' object is not iterable");
  EXPECT_EQ(Py("max(1, 2, default=3)\n"),
            "TypeError: Cannot specify a default for max() with multiple positional arguments");
  EXPECT_EQ(Py("max([1], foo=2)\n"), "TypeError: 'foo' is an invalid keyword argument for max()");
  EXPECT_EQ(Py("max([1, 'a'])\n"),
            "TypeError: '>' not supported between instances of 'str' and 'int'");
}

TEST(Builtins, SumUsesStartAndRejectsStrings) {
  EXPECT_EQ(
      Py("print(sum([1, 2, 3]), sum([0.1] * 10), sum([[1], [2]], []), sum((1, 2), start=10))\n"),
      "6 0.9999999999999999 [1, 2] 13\n");
  EXPECT_EQ(Py("print(sum([True, True, 2]), sum([1, 2.5]))\n"), "4 3.5\n");
  EXPECT_EQ(Py("sum(['a', 'b'], '')\n"),
            "TypeError: sum() can't sum strings [use ''.join(seq) instead]");
  EXPECT_EQ(Py("sum(['a'])\n"), "TypeError: unsupported operand type(s) for +: 'int' and 'str'");
  EXPECT_EQ(Py("sum()\n"), "TypeError: sum() takes at least 1 positional argument (0 given)");
  EXPECT_EQ(Py("sum([1], 2, 3)\n"), "TypeError: sum() takes at most 2 arguments (3 given)");
}

TEST(Builtins, AbsRoundAndDivmodMatchPython) {
  EXPECT_EQ(Py("print(abs(-3), abs(-2.5), abs(True), abs(-0.0))\n"), "3 2.5 1 0.0\n");
  EXPECT_EQ(Py("abs('x')\n"), "TypeError: bad operand type for abs(): 'str'");
  EXPECT_EQ(Py("print(round(2.5), round(3.5), round(-0.5), round(0.125, 2), round(2.675, 2), "
               "round(1234.5, -1))\n"),
            "2 4 0 0.12 2.67 1230.0\n");
  EXPECT_EQ(Py("print(round(1250, -2), round(1350, -2), round(-1250, -2), round(149.5, -2), "
               "round(5, None))\n"),
            "1200 1400 -1200 100.0 5\n");
  EXPECT_EQ(Py("print(round(1.5, -400), round(-1.5, -400), round(5e-324, 400), round(True), "
               "round(7, 2))\n"),
            "0.0 -0.0 5e-324 1 7\n");
  EXPECT_EQ(Py("print(round(float('nan'), 2), round(float('inf'), 1), round(-2.5), round(0.5))\n"),
            "nan inf -2 0\n");
  EXPECT_EQ(Py("round(float('inf'))\n"), "OverflowError: cannot convert float infinity to integer");
  EXPECT_EQ(Py("round(float('nan'))\n"), "ValueError: cannot convert float NaN to integer");
  EXPECT_EQ(Py("round(1.7e308, -308)\n"), "OverflowError: rounded value too large to represent");
  EXPECT_EQ(Py("round('a')\n"), "TypeError: type str doesn't define __round__ method");
  EXPECT_EQ(Py("round(1.5, 'a')\n"), "TypeError: 'str' object cannot be interpreted as an integer");
  EXPECT_EQ(Py("round(1, 2, 3)\n"), "TypeError: round() takes at most 2 arguments (3 given)");
  EXPECT_EQ(Py("round(number=1.5, ndigits=None); print(round(number=2.567, ndigits=1))\n"),
            "2.6\n");
  EXPECT_EQ(Py("round(1, number=2)\n"),
            "TypeError: argument for round() given by name ('number') and position (1)");
  EXPECT_EQ(
      Py("print(divmod(7, 2), divmod(-7, 2), divmod(7, -2), divmod(7.5, -2), divmod(-0.0, 1))\n"),
      "(3, 1) (-4, 1) (-4, -1) (-4.0, -0.5) (-0.0, 0.0)\n");
  EXPECT_EQ(Py("divmod(1, 0)\n"), "ZeroDivisionError: integer division or modulo by zero");
  EXPECT_EQ(Py("divmod(1.0, 0)\n"), "ZeroDivisionError: float divmod()");
  EXPECT_EQ(Py("divmod(1)\n"), "TypeError: divmod expected 2 arguments, got 1");
}

TEST(Builtins, PowHandlesModulusAndNegativeExponents) {
  EXPECT_EQ(Py("print(pow(2, 10), pow(2, -2), pow(2.0, 0.5), pow(-2, 3, 5), pow(3, -1, 7), pow(5, "
               "0, 1), pow(7, 2, -5))\n"),
            "1024 0.25 1.4142135623730951 2 5 0 -1\n");
  EXPECT_EQ(Py("pow(2, -1, 4)\n"), "ValueError: base is not invertible for the given modulus");
  EXPECT_EQ(Py("pow(2, 3, 0)\n"), "ValueError: pow() 3rd argument cannot be 0");
  EXPECT_EQ(Py("pow(2.0, 3, 5)\n"),
            "TypeError: pow() 3rd argument not allowed unless all arguments are integers");
  EXPECT_EQ(Py("pow(1)\n"), "TypeError: pow() missing required argument 'exp' (pos 2)");
  EXPECT_EQ(Py("pow(0, -1)\n"), "ZeroDivisionError: 0.0 cannot be raised to a negative power");
}

TEST(Builtins, ChrOrdHashAndCallable) {
  EXPECT_EQ(Py("print(chr(65), chr(233), ord('A'), ord('é'), ord(chr(0x1F600)))\n"),
            "A é 65 233 128512\n");
  EXPECT_EQ(Py("chr(-1)\n"), "ValueError: chr() arg not in range(0x110000)");
  EXPECT_EQ(Py("chr(1.5)\n"), "TypeError: 'float' object cannot be interpreted as an integer");
  EXPECT_EQ(Py("ord('ab')\n"),
            "TypeError: ord() expected a character, but string of length 2 found");
  EXPECT_EQ(Py("ord(1)\n"), "TypeError: ord() expected string of length 1, but int found");
  EXPECT_EQ(
      Py("print(hash(1.5) == hash(1.5), hash('a') == hash('a'), hash((1, 2)) == hash((1, 2)))\n"),
      "True True True\n");
  EXPECT_EQ(Py("hash([])\n"), "TypeError: unhashable type: 'list'");
  EXPECT_EQ(Py("print(callable(len), callable(print), callable(1), callable(lambda: 0), "
               "callable(int), callable('a'.upper))\n"),
            "True True False True True True\n");
}

TEST(Builtins, SortedIsStableWithKeyAndReverse) {
  EXPECT_EQ(Py("print(sorted([3, 1, 2]), sorted('bca'), sorted([3, 1, 2], reverse=True))\n"),
            "[1, 2, 3] ['a', 'b', 'c'] [3, 2, 1]\n");
  EXPECT_EQ(Py("print(sorted([(1, 'b'), (0, 'z'), (1, 'a')], key=lambda p: p[0]))\n"),
            "[(0, 'z'), (1, 'b'), (1, 'a')]\n");
  EXPECT_EQ(Py("print(sorted([(1, 'b'), (0, 'z'), (1, 'a')], key=lambda p: p[0], reverse=True))\n"),
            "[(1, 'b'), (1, 'a'), (0, 'z')]\n");
  EXPECT_EQ(Py("print(sorted({'b': 1, 'a': 2}), sorted([2.5, 1, True]))\n"),
            "['a', 'b'] [1, True, 2.5]\n");
  EXPECT_EQ(Py("sorted([1, 'a'])\n"),
            "TypeError: '<' not supported between instances of 'str' and 'int'");
  EXPECT_EQ(Py("sorted()\n"), "TypeError: sorted expected 1 argument, got 0");
  EXPECT_EQ(Py("sorted([], foo=1)\n"),
            "TypeError: 'foo' is an invalid keyword argument for sort()");
  EXPECT_EQ(Py("sorted([], [])\n"), "TypeError: sorted expected 1 argument, got 2");
}

TEST(Builtins, ReversedAnyAllMapFilter) {
  EXPECT_EQ(Py("print(list(reversed([1, 2, 3])), list(reversed('abc')), list(reversed(range(1, 10, "
               "4))), list(reversed((1, 2))))\n"),
            "[3, 2, 1] ['c', 'b', 'a'] [9, 5, 1] [2, 1]\n");
  EXPECT_EQ(Py("print(list(reversed({1: 'a', 2: 'b'})))\n"), "[2, 1]\n");
  EXPECT_EQ(Py("reversed(5)\n"), "TypeError: 'int' object is not reversible");
  EXPECT_EQ(Py("print(any([0, '', 1]), any([]), all([1, 'a']), all([]), all([1, 0]))\n"),
            "True False True True False\n");
  EXPECT_EQ(Py("any(1)\n"), "TypeError: 'int' object is not iterable");
  EXPECT_EQ(Py("print(list(map(lambda x: x * 2, [1, 2])), list(map(lambda a, b: a + b, [1, 2, 3], "
               "[10, 20])))\n"),
            "[2, 4] [11, 22]\n");
  EXPECT_EQ(
      Py("print(list(filter(None, [0, 1, '', 'a'])), list(filter(lambda x: x > 1, [1, 2, 3])))\n"),
      "[1, 'a'] [2, 3]\n");
  EXPECT_EQ(Py("map(len)\n"), "TypeError: map() must have at least two arguments.");
  EXPECT_EQ(Py("filter(len)\n"), "TypeError: filter expected 2 arguments, got 1");
  EXPECT_EQ(Py("m = map(str, [1, 2]); print(next(m), list(m), list(m))\n"), "1 ['2'] []\n");
}

TEST(Builtins, IterAndNextFollowTheIteratorProtocol) {
  EXPECT_EQ(Py("it = iter([1, 2]); print(next(it), next(it), next(it, 'end'))\n"), "1 2 end\n");
  EXPECT_EQ(Py("next(iter([]))\n"), "StopIteration");
  EXPECT_EQ(Py("next([1])\n"), "TypeError: 'list' object is not an iterator");
  EXPECT_EQ(Py("iter(5)\n"), "TypeError: 'int' object is not iterable");
  EXPECT_EQ(Py("n = [0]\ndef f():\n    n[0] += 1\n    return n[0]\nprint(list(iter(f, 4)))\n"),
            "[1, 2, 3]\n");
}

TEST(Builtins, IsinstanceAcceptsTypesAndNestedTuples) {
  EXPECT_EQ(Py("print(isinstance(1, int), isinstance(True, int), isinstance(1, bool), "
               "isinstance('a', (int, str)))\n"),
            "True True False True\n");
  EXPECT_EQ(Py("print(isinstance(1.0, (str, (list, float))), isinstance([], list), isinstance({}, "
               "dict))\n"),
            "True True True\n");
  EXPECT_EQ(Py("isinstance(1, 1)\n"),
            "TypeError: isinstance() arg 2 must be a type, a tuple of types, or a union");
  EXPECT_EQ(Py("isinstance(1)\n"), "TypeError: isinstance expected 2 arguments, got 1");
}

TEST(Builtins, GetattrAndHasattrUseDefaults) {
  EXPECT_EQ(Py("print(getattr('a', 'upper')(), getattr(1, 'nope', 'dflt'), hasattr('a', 'split'), "
               "hasattr(1, 'nope'))\n"),
            "A dflt True False\n");
  EXPECT_EQ(Py("getattr(1, 'nope')\n"), "AttributeError: 'int' object has no attribute 'nope'");
  EXPECT_EQ(Py("getattr(1, 2)\n"), "TypeError: attribute name must be string, not 'int'");
  EXPECT_EQ(Py("getattr(1)\n"), "TypeError: getattr expected at least 2 arguments, got 1");
}

TEST(Builtins, FormatBuiltinUsesTheSpec) {
  EXPECT_EQ(Py("print(format(3.14159, '.2f'), format(42, '>5'), format('x', '^3'), format(True), "
               "format(True, '>5'))\n"),
            "3.14    42  x  True     1\n");
}

TEST(Builtins, IntegerResultsBeyond64BitsRaiseOverflowError) {
  EXPECT_EQ(Py("sum([2**62, 2**62])\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
  EXPECT_EQ(Py("abs(-9223372036854775807 - 1)\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
  EXPECT_EQ(Py("int('9223372036854775808')\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
  EXPECT_EQ(Py("print(int('-9223372036854775808'), int(' 9223372036854775807 '))\n"),
            "-9223372036854775808 9223372036854775807\n");
  EXPECT_EQ(Py("round(9223372036854775807, -1)\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
  EXPECT_EQ(Py("divmod(-9223372036854775807 - 1, -1)\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
  EXPECT_EQ(Py("int(1e19)\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
  EXPECT_EQ(Py("print(pow(2, 62, 9223372036854775807), pow(3, 2**62, 1000))\n"),
            "4611686018427387904 81\n");
  EXPECT_EQ(Py("import math\nmath.factorial(21)\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
  EXPECT_EQ(Py("import math\nmath.comb(100, 50)\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
  EXPECT_EQ(Py("import math\nmath.prod([2**40, 2**40])\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
  EXPECT_EQ(Py("import math\nmath.floor(1e300)\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
}

TEST(TypeConstructors, IntParsesStringsLikePython) {
  EXPECT_EQ(
      Py("print(int(), int(3.9), int(-3.9), int(True), int(' 42 '), int('-1_000'), int('+7'))\n"),
      "0 3 -3 1 42 -1000 7\n");
  EXPECT_EQ(Py("print(int('ff', 16), int('0x1F', 16), int('0x1f', 0), int('0o17', 0), int('0b101', "
               "0), int('z', 36), int('0b1', 16))\n"),
            "255 31 31 15 5 35 177\n");
  EXPECT_EQ(Py("print(int('00', 0), int('0_0', 0), int('0x_1f', 16))\n"), "0 0 31\n");
  EXPECT_EQ(Py("int('1__0')\n"), "ValueError: invalid literal for int() with base 10: '1__0'");
  EXPECT_EQ(Py("int('')\n"), "ValueError: invalid literal for int() with base 10: ''");
  EXPECT_EQ(Py("int('12a')\n"), "ValueError: invalid literal for int() with base 10: '12a'");
  EXPECT_EQ(Py("int('010', 0)\n"), "ValueError: invalid literal for int() with base 0: '010'");
  EXPECT_EQ(Py("int('12', 1)\n"), "ValueError: int() base must be >= 2 and <= 36, or 0");
  EXPECT_EQ(Py("int(12, 10)\n"), "TypeError: int() can't convert non-string with explicit base");
  EXPECT_EQ(Py("int(float('inf'))\n"), "OverflowError: cannot convert float infinity to integer");
  EXPECT_EQ(Py("int(float('nan'))\n"), "ValueError: cannot convert float NaN to integer");
  EXPECT_EQ(Py("int([])\n"),
            "TypeError: int() argument must be a string, a bytes-like object or a real number, not "
            "'list'");
  EXPECT_EQ(Py("int(None)\n"),
            "TypeError: int() argument must be a string, a bytes-like object or a real number, not "
            "'NoneType'");
  EXPECT_EQ(Py("int(1, 2, 3)\n"), "TypeError: int() takes at most 2 arguments (3 given)");
  EXPECT_EQ(Py("int(x=1)\n"), "TypeError: 'x' is an invalid keyword argument for int()");
}

TEST(TypeConstructors, FloatParsesStringsLikePython) {
  EXPECT_EQ(Py("print(float(), float(2), float(' 1e3 '), float('1_0.5'), float('-inf'), "
               "float('nan'), float('Infinity'), float('.5'), float('5.'))\n"),
            "0.0 2.0 1000.0 10.5 -inf nan inf 0.5 5.0\n");
  EXPECT_EQ(Py("float('abc')\n"), "ValueError: could not convert string to float: 'abc'");
  EXPECT_EQ(Py("float('1__0')\n"), "ValueError: could not convert string to float: '1__0'");
  EXPECT_EQ(Py("float('')\n"), "ValueError: could not convert string to float: ''");
  EXPECT_EQ(Py("float([])\n"),
            "TypeError: float() argument must be a string or a real number, not 'list'");
  EXPECT_EQ(Py("float(1, 2)\n"), "TypeError: float expected at most 1 argument, got 2");
}

TEST(TypeConstructors, StrBoolAndContainerConstructors) {
  EXPECT_EQ(
      Py("print(str(), str(1.5), str([1, 'a']), str('x'), bool(), bool(0), bool([1]), bool(''))\n"),
      " 1.5 [1, 'a'] x False False True False\n");
  EXPECT_EQ(Py("print(tuple(), tuple([1, 2]), tuple('ab'), list(), list((1, 2)), list('ab'), "
               "list(range(3)))\n"),
            "() (1, 2) ('a', 'b') [] [1, 2] ['a', 'b'] [0, 1, 2]\n");
  EXPECT_EQ(Py("print(dict(), dict(a=1, b=2), dict([('a', 1), ['b', 2]]), dict({'x': 1}, y=2))\n"),
            "{} {'a': 1, 'b': 2} {'a': 1, 'b': 2} {'x': 1, 'y': 2}\n");
  EXPECT_EQ(Py("print(set(), sorted(set([3, 1, 3])), len(set('hello')))\n"), "set() [1, 3] 4\n");
  EXPECT_EQ(Py("dict([1])\n"),
            "TypeError: cannot convert dictionary update sequence element #0 to a sequence");
  EXPECT_EQ(Py("dict([(1, 2, 3)])\n"),
            "ValueError: dictionary update sequence element #0 has length 3; 2 is required");
  EXPECT_EQ(Py("dict(1)\n"), "TypeError: 'int' object is not iterable");
  EXPECT_EQ(Py("list(1)\n"), "TypeError: 'int' object is not iterable");
  EXPECT_EQ(Py("tuple(1, 2)\n"), "TypeError: tuple expected at most 1 argument, got 2");
  EXPECT_EQ(Py("bool(1, 2)\n"), "TypeError: bool expected at most 1 argument, got 2");
}

TEST(TypeConstructors, TypeReturnsTheTypeObject) {
  EXPECT_EQ(Py("print(type(1), type('a'), type(1.5), type([]), type(None), type(True), "
               "type(range(1)))\n"),
            "<class 'int'> <class 'str'> <class 'float'> <class 'list'> <class 'NoneType'> <class "
            "'bool'> <class 'range'>\n");
  EXPECT_EQ(Py("print(type(1) is int, type(True) is bool, type([]) == list)\n"),
            "True True True\n");
  EXPECT_EQ(Py("s = slice(1, 2); print(slice(3).stop, s.start, s.step, slice(1, 2, 3).step)\n"),
            "3 1 None 3\n");
  EXPECT_EQ(Py("type(1, 2)\n"), "TypeError: type() takes 1 or 3 arguments");
}

}  // namespace
}  // namespace pz::eval
