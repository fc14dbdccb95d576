# collections.abc: isinstance/issubclass against builtin types, annotations and subclassing.
import collections.abc
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence

print(isinstance([], Sequence), isinstance((1,), Sequence), isinstance("s", Sequence))
print(isinstance({}, Sequence), isinstance({}, Mapping), isinstance(OrderedDict(), collections.abc.MutableMapping))
print(isinstance(len, Callable), isinstance(lambda: 0, Callable), isinstance(3, Callable))
print(isinstance(range(3), Iterable), isinstance(5, Iterable), isinstance(iter([]), collections.abc.Iterator))
print(isinstance({1}, collections.abc.Set), isinstance({}.keys(), collections.abc.Set))
print(isinstance(deque(), collections.abc.MutableSequence), isinstance([], collections.abc.Hashable))
print(issubclass(list, collections.abc.MutableSequence), issubclass(tuple, collections.abc.MutableSequence))
print(Sequence, collections.abc.Sized, Mapping.__name__)


def apply(fn: Callable[[int], int], xs: Sequence[int]) -> Mapping[str, int]:
    return {str(x): fn(x) for x in xs}


class Pair(Sequence):
    def __init__(self, a, b):
        self.items = (a, b)

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return 2


print(apply(lambda v: v * v, [2, 3]), isinstance(Pair(1, 2), Sequence), isinstance(Pair(1, 2), Iterable))
# expect: True True True
# expect: False True True
# expect: True True False
# expect: True False True
# expect: True True
# expect: True False
# expect: True False
# expect: <class 'collections.abc.Sequence'> <class 'collections.abc.Sized'> Mapping
# expect: {'2': 4, '3': 9} True True
