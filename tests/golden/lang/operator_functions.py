# operator: the arithmetic, comparison, logical and item functions behave as the operators do.
import functools
import operator

print(operator.add(1, 2), operator.sub(5, 3), operator.mul("ab", 2), operator.truediv(7, 2))
print(operator.floordiv(-7, 2), operator.mod(-7, 3), operator.pow(2, 10), operator.matmul is not None)
print(operator.neg(3), operator.pos(-3), operator.abs(-2.5), operator.index(True), operator.invert(5))
print(operator.not_([]), operator.truth([1]), operator.is_(None, None), operator.is_not(1, None))
print(operator.eq(1, 1.0), operator.ne(1, 2), operator.lt(1, 2), operator.le(2, 2), operator.gt("b", "a"), operator.ge(1, 2))
print(operator.and_(6, 3), operator.or_(6, 3), operator.xor(6, 3), operator.lshift(1, 4), operator.rshift(32, 2))
print(operator.or_({1}, {2}), operator.and_({1, 2}, {2}), operator.add([1], [2]), operator.add((1,), (2,)))
d = {"a": 1}
operator.setitem(d, "b", 2)
print(operator.getitem(d, "b"), operator.contains(d, "a"), operator.contains("abc", "bc"))
operator.delitem(d, "a")
print(d, operator.concat([1], [2]), operator.countOf([1, 2, 1], 1), operator.indexOf("abc", "c"))
print(functools.reduce(operator.mul, range(1, 6)), functools.reduce(operator.add, ["a", "b"], ""))
print(list(map(operator.sub, [10, 20], [1, 2])), sorted([3, 1, 2], key=operator.neg), operator.getitem("hi", -1))
try:
    operator.concat(1, 2)
except TypeError as e:
    print(e)
try:
    operator.add(1)
except TypeError as e:
    print(e)
# expect: 3 2 abab 3.5
# expect: -4 2 1024 True
# expect: -3 -3 2.5 1 -6
# expect: True True True True
# expect: True True True True True False
# expect: 2 7 5 16 8
# expect: {1, 2} {2} [1, 2] (1, 2)
# expect: 2 True True
# expect: {'b': 2} [1, 2] 2 2
# expect: 120 ab
# expect: [9, 18] [3, 2, 1] i
# expect: 'int' object can't be concatenated
# expect: add expected 2 arguments, got 1
