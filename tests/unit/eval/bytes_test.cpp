// Unit tests of `bytes` (eval/bytes*.cpp): literals, the constructor, operators and protocols,
// methods, encodings, formatting, and arrays as bytes (tobytes / frombuffer), run as small
// programs. Expected outputs and messages are CPython 3.11's (numpy 2's for arrays).
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

TEST(Bytes, LiteralsReprAsCPython) {
  EXPECT_EQ(Py("print(b'abc', B\"x\", rb'\\n', b'\\x00\\xff', b'a' b'b')\n"),
            "b'abc' b'x' b'\\\\n' b'\\x00\\xff' b'ab'\n");
  EXPECT_EQ(Py("print(b\"it's\", b'it\\'s \"x\"', b'\\n\\t\\r\\\\', b'\\x7f\\x80\\x1f ~')\n"),
            "b\"it's\" b'it\\'s \"x\"' b'\\n\\t\\r\\\\' b'\\x7f\\x80\\x1f ~'\n");
  EXPECT_EQ(Py("print(repr(b'a'), str(b'a'), type(b''), bytes, isinstance(b'', bytes), "
               "isinstance('', bytes))\n"),
            "b'a' b'a' <class 'bytes'> <class 'bytes'> True False\n");
}

TEST(Bytes, ConstructorTakesCountsIntsStringsAndBytes) {
  EXPECT_EQ(Py("print(bytes(), bytes(3), bytes([1, 2, 255]), bytes(range(3)), bytes(b'ab'))\n"),
            "b'' b'\\x00\\x00\\x00' b'\\x01\\x02\\xff' b'\\x00\\x01\\x02' b'ab'\n");
  EXPECT_EQ(Py("print(bytes('é', 'utf-8'), bytes('é', 'latin-1'), bytes('a', encoding='ascii'), "
               "bytes(source='é', encoding='utf8', errors='strict'))\n"),
            "b'\\xc3\\xa9' b'\\xe9' b'a' b'\\xc3\\xa9'\n");
  EXPECT_EQ(Py("bytes([256])\n"), "ValueError: bytes must be in range(0, 256)");
  EXPECT_EQ(Py("bytes(x for x in [1, -1])\n"), "ValueError: bytes must be in range(0, 256)");
  EXPECT_EQ(Py("bytes(['a'])\n"), "TypeError: 'str' object cannot be interpreted as an integer");
  EXPECT_EQ(Py("bytes(-1)\n"), "ValueError: negative count");
  EXPECT_EQ(Py("bytes('abc')\n"), "TypeError: string argument without an encoding");
  EXPECT_EQ(Py("bytes(b'x', 'utf-8')\n"), "TypeError: encoding without a string argument");
  EXPECT_EQ(Py("bytes(1.5)\n"), "TypeError: cannot convert 'float' object to bytes");
  EXPECT_EQ(Py("bytes(1, 2)\n"), "TypeError: bytes() argument 'encoding' must be str, not int");
  EXPECT_EQ(Py("bytes('a', 'foo')\n"), "LookupError: unknown encoding: foo");
}

TEST(Bytes, FromHexAndHex) {
  EXPECT_EQ(Py("print(bytes.fromhex('00ff'), bytes.fromhex(' 01 02\\n'), b''.fromhex('7f'), "
               "bytes.fromhex(''))\n"),
            "b'\\x00\\xff' b'\\x01\\x02' b'\\x7f' b''\n");
  EXPECT_EQ(Py("bytes.fromhex('a b')\n"),
            "ValueError: non-hexadecimal number found in fromhex() arg at position 1");
  EXPECT_EQ(Py("bytes.fromhex('abc')\n"),
            "ValueError: non-hexadecimal number found in fromhex() arg at position 3");
  EXPECT_EQ(Py("bytes.fromhex(b'ab')\n"), "TypeError: fromhex() argument must be str, not bytes");
  EXPECT_EQ(Py("print(b'\\x00\\xff'.hex(), b'abc'.hex(':', 2), b'abcde'.hex(':', 2), "
               "b'abcde'.hex('-', -2), b'abc'.hex(b' '), b'abc'.hex(':', 0), bytes.hex(b'ab'))\n"),
            "00ff 61:6263 61:6263:6465 6162-6364-65 61 62 63 616263 6162\n");
  EXPECT_EQ(Py("b'a'.hex('::')\n"), "ValueError: sep must be length 1.");
  EXPECT_EQ(Py("bytes.hex('a')\n"),
            "TypeError: descriptor 'hex' for 'bytes' objects doesn't apply to a 'str' object");
}

TEST(Bytes, IndexingSlicingAndIteration) {
  EXPECT_EQ(Py("b = b'abc'\nprint(len(b), b[0], b[-1], b[1:], b[::-1], b[5:], list(b), "
               "[x for x in b'\\x00\\xff'])\n"),
            "3 97 99 b'bc' b'cba' b'' [97, 98, 99] [0, 255]\n");
  EXPECT_EQ(Py("b'ab'[2]\n"), "IndexError: index out of range");
  EXPECT_EQ(Py("b'ab'['x']\n"), "TypeError: byte indices must be integers or slices, not str");
  EXPECT_EQ(Py("b = b'ab'\nb[0] = 1\n"),
            "TypeError: 'bytes' object does not support item assignment");
}

TEST(Bytes, OperatorsAndComparisons) {
  EXPECT_EQ(Py("print(b'ab' + b'cd', b'ab' * 2, 2 * b'ab', b'ab' * -1, b'ab' == b'ab', "
               "b'a' == 'a', b'a' != 'a', b'ab' < b'b', b'' < b'\\x00', b'\\xff' > b'a')\n"),
            "b'abcd' b'abab' b'abab' b'' True False True True True True\n");
  EXPECT_EQ(Py("print(b'a' in b'cab', 97 in b'a', b'' in b'', True in b'\\x01', bool(b''), "
               "bool(b'\\x00'), sorted([b'b', b'a', b'ab']))\n"),
            "True True True True False True [b'a', b'ab', b'b']\n");
  EXPECT_EQ(Py("b'a' + 'b'\n"), "TypeError: can't concat str to bytes");
  EXPECT_EQ(Py("'a' + b'a'\n"), "TypeError: can only concatenate str (not \"bytes\") to str");
  EXPECT_EQ(Py("b'a' * 2.0\n"), "TypeError: can't multiply sequence by non-int of type 'float'");
  EXPECT_EQ(Py("'a' * b'a'\n"), "TypeError: can't multiply sequence by non-int of type 'bytes'");
  EXPECT_EQ(Py("b'a' < 'a'\n"),
            "TypeError: '<' not supported between instances of 'bytes' and 'str'");
  EXPECT_EQ(Py("b'a' - b'a'\n"),
            "TypeError: unsupported operand type(s) for -: 'bytes' and 'bytes'");
  EXPECT_EQ(Py("'a' in b'a'\n"), "TypeError: a bytes-like object is required, not 'str'");
  EXPECT_EQ(Py("256 in b'a'\n"), "ValueError: byte must be in range(0, 256)");
}

TEST(Bytes, HashLikeStrAndWorkAsKeys) {
  EXPECT_EQ(Py("d = {b'k': 1, (b'a', 2): 3}\nprint(d[b'k'], d[(b'a', 2)], hash(b'x') == "
               "hash(b'x'), hash((b'a', 1)) == hash((b'a', 1)), {b'a', b'a'}, b'k' in d, "
               "'k' in d)\n"),
            "1 3 True True {b'a'} True False\n");
}

TEST(Bytes, SearchMethods) {
  EXPECT_EQ(Py("b = b'abcabc'\nprint(b.find(b'c'), b.find(b'c', -2), b.find(99), b.rfind(b'b'), "
               "b.find(b'z'), b.index(b'b'), b.count(b'bc'), b.count(97), b'abc'.count(b''), "
               "b.find(b'b', None, None))\n"),
            "2 5 2 4 -1 1 2 2 4 1\n");
  EXPECT_EQ(Py("print(b'abc'.startswith(b'ab'), b'abc'.startswith((b'x', b'bc'), 1), "
               "b'abc'.endswith(b'bc', 0, 3), b'abc'.startswith(b'', 4))\n"),
            "True True True False\n");
  EXPECT_EQ(Py("b'a'.index(b'z')\n"), "ValueError: subsection not found");
  EXPECT_EQ(Py("b'a'.find('a')\n"),
            "TypeError: argument should be integer or bytes-like object, not 'str'");
  EXPECT_EQ(Py("b'a'.find(256)\n"), "ValueError: byte must be in range(0, 256)");
  EXPECT_EQ(Py("b'a'.find()\n"), "TypeError: find() takes at least 1 argument (0 given)");
  EXPECT_EQ(Py("b'a'.startswith('a')\n"),
            "TypeError: startswith first arg must be bytes or a tuple of bytes, not str");
}

TEST(Bytes, SplitJoinStripReplaceAndCase) {
  EXPECT_EQ(Py("print(b' a  b '.split(), b' a  b '.split(None, 1), b'a,b,c'.split(b',', 1), "
               "b'a,b,c'.rsplit(b',', 1), b' a b '.rsplit(None, 1))\n"),
            "[b'a', b'b'] [b'a', b'b '] [b'a', b'b,c'] [b'a,b', b'c'] [b' a', b'b']\n");
  EXPECT_EQ(Py("print(b'-'.join([b'a', b'b']), b''.join([]), b' xa\\n'.strip(), "
               "b'xax'.strip(b'x'), b'xax'.lstrip(b'x'), b'xax'.rstrip(b'x'))\n"),
            "b'a-b' b'' b'xa' b'a' b'ax' b'xa'\n");
  EXPECT_EQ(Py("print(b'aaa'.replace(b'a', b'b', 2), b'ab'.replace(b'', b'-'), "
               "b'aAz\\xff'.upper(), b'aAz\\xff'.lower(), b'12'.isdigit(), b''.isdigit(), "
               "b'ab'.removeprefix(b'a'))\n"),
            "b'bba' b'-a-b-' b'AAZ\\xff' b'aaz\\xff' True False b'b'\n");
  EXPECT_EQ(Py("b'a'.split(b'')\n"), "ValueError: empty separator");
  EXPECT_EQ(Py("b'a'.join(['a'])\n"),
            "TypeError: sequence item 0: expected a bytes-like object, str found");
  EXPECT_EQ(Py("b'a'.strip('a')\n"), "TypeError: a bytes-like object is required, not 'str'");
  EXPECT_EQ(Py("b'a'.upper(1)\n"), "TypeError: bytes.upper() takes no arguments (1 given)");
}

TEST(Bytes, DecodeAndEncodeWithCPythonsErrors) {
  EXPECT_EQ(Py("print(b'caf\\xc3\\xa9'.decode(), b'\\xe9'.decode('latin-1'), "
               "str(b'a', 'ascii'), 'é'.encode(), 'é'.encode('latin_1'), "
               "b'\\xffa'.decode('ascii', 'replace'), 'aéb'.encode('ascii', 'replace'), "
               "b'\\xe2\\x82a'.decode('utf-8', 'ignore'))\n"),
            "café é a b'\\xc3\\xa9' b'\\xe9' \xef\xbf\xbd"
            "a b'a?b' a\n");
  EXPECT_EQ(Py("b'\\xff'.decode()\n"),
            "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid "
            "start byte");
  EXPECT_EQ(Py("b'a\\xe2\\x82\\x28'.decode()\n"),
            "UnicodeDecodeError: 'utf-8' codec can't decode bytes in position 1-2: invalid "
            "continuation byte");
  EXPECT_EQ(Py("b'\\xe2\\x82'.decode()\n"),
            "UnicodeDecodeError: 'utf-8' codec can't decode bytes in position 0-1: unexpected "
            "end of data");
  EXPECT_EQ(Py("'aééb'.encode('ascii')\n"),
            "UnicodeEncodeError: 'ascii' codec can't encode characters in position 1-2: ordinal "
            "not in range(128)");
  EXPECT_EQ(Py("'a€'.encode('latin-1')\n"),
            "UnicodeEncodeError: 'latin-1' codec can't encode character '\\u20ac' in position "
            "1: ordinal not in range(256)");
  EXPECT_EQ(Py("try:\n  b'\\xff'.decode('ascii')\nexcept ValueError as e:\n  print(type(e))\n"),
            "<class 'UnicodeDecodeError'>\n");
  EXPECT_EQ(Py("b'\\xff'.decode(errors='bad')\n"), "LookupError: unknown error handler name 'bad'");
  EXPECT_EQ(Py("str('a', 'utf-8')\n"), "TypeError: decoding str is not supported");
}

TEST(Bytes, IntToBytesAndFromBytes) {
  EXPECT_EQ(Py("print((1025).to_bytes(2, 'big'), (1025).to_bytes(2, 'little'), "
               "(-2).to_bytes(3, 'big', signed=True), (7).to_bytes(), (-5).to_bytes(10, 'little', "
               "signed=True))\n"),
            "b'\\x04\\x01' b'\\x01\\x04' b'\\xff\\xff\\xfe' b'\\x07' "
            "b'\\xfb\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff'\n");
  EXPECT_EQ(Py("print(int.from_bytes(b'\\x04\\x01', 'little'), int.from_bytes(b'\\xff\\xfe', "
               "signed=True), int.from_bytes([1, 0]), int.from_bytes(bytes(12) + b'\\x05'), "
               "int.from_bytes(b'\\x80', signed=True))\n"),
            "260 -2 256 5 -128\n");
  EXPECT_EQ(Py("(128).to_bytes(1, 'big', signed=True)\n"), "OverflowError: int too big to convert");
  EXPECT_EQ(Py("(-1).to_bytes(2, 'big')\n"),
            "OverflowError: can't convert negative int to unsigned");
  EXPECT_EQ(Py("(1).to_bytes(-1, 'big')\n"), "ValueError: length argument must be non-negative");
  EXPECT_EQ(Py("int.from_bytes('ab')\n"), "TypeError: cannot convert 'str' object to bytes");
  EXPECT_EQ(Py("int.from_bytes(b'\\x80' + bytes(7))\n"),
            "OverflowError: integer result out of range; integers are 64-bit in this engine");
  EXPECT_EQ(Py("sum([b'a'], b'')\n"),
            "TypeError: sum() can't sum bytes [use b''.join(seq) instead]");
}

TEST(Bytes, FormattingUsesTheRepr) {
  EXPECT_EQ(Py("b = b'x\\x00'\nprint(f'{b}', f'{b!r}', '{}'.format(b), '%s %r' % (b, b))\n"),
            "b'x\\x00' b'x\\x00' b'x\\x00' b'x\\x00' b'x\\x00'\n");
  EXPECT_EQ(Py("format(b'ab', '10')\n"),
            "TypeError: unsupported format string passed to bytes.__format__");
}

TEST(Bytes, ArraysToBytesAndBack) {
  EXPECT_EQ(Py("import numpy as np\n"
               "print(np.array([1.5, -2], dtype=np.float32).tobytes())\n"
               "print(np.array([[1, 2], [3, 4]], dtype=np.int16).T.tobytes())\n"
               "print(np.array([1, 2], np.int16).reshape(1, 2).tobytes(order='F'))\n"
               "print(np.array([True, False]).tobytes(), np.array(7, dtype=np.uint8).tobytes())\n"),
            "b'\\x00\\x00\\xc0?\\x00\\x00\\x00\\xc0'\n"
            "b'\\x01\\x00\\x03\\x00\\x02\\x00\\x04\\x00'\n"
            "b'\\x01\\x00\\x02\\x00'\n"
            "b'\\x01\\x00' b'\\x07'\n");
  EXPECT_EQ(Py("import jax.numpy as jnp\n"
               "print(jnp.array([1, 2], dtype=jnp.int16).tobytes(), "
               "jnp.array([1.0], dtype=jnp.bfloat16).tobytes())\n"),
            "b'\\x01\\x00\\x02\\x00' b'\\x80?'\n");
  EXPECT_EQ(Py("import numpy as np\n"
               "print(np.frombuffer(b'\\x01\\x00\\x02\\x00', dtype=np.int16))\n"
               "print(repr(np.frombuffer(b'abcd', np.uint8, 2, 1)))\n"
               "x = np.arange(6, dtype=np.float32)\n"
               "print(np.frombuffer(x.tobytes(), dtype=np.float32).tolist(), bytes(x[:1]))\n"),
            "[1 2]\narray([98, 99], dtype=uint8)\n[0.0, 1.0, 2.0, 3.0, 4.0, 5.0] "
            "b'\\x00\\x00\\x00\\x00'\n");
  EXPECT_EQ(Py("import numpy as np\nnp.frombuffer(b'abc', dtype=np.int16)\n"),
            "ValueError: buffer size must be a multiple of element size");
  EXPECT_EQ(Py("import numpy as np\nnp.frombuffer(b'abcd', dtype=np.int16, count=3)\n"),
            "ValueError: buffer is smaller than requested size");
  EXPECT_EQ(Py("import numpy as np\nnp.frombuffer('ab', dtype=np.uint8)\n"),
            "TypeError: a bytes-like object is required, not 'str'");
}

}  // namespace
}  // namespace pz::eval
