# NamedTuple classes and collections.namedtuple: fields, defaults, methods, _replace, unpacking.
import collections
from typing import NamedTuple


class BlockSizes(NamedTuple):
    block_q: int
    block_k: int = 128

    def total(self):
        return self.block_q + self.block_k


b = BlockSizes(64)
print(b, b.block_q, b[1], b.total(), len(b))
print(b._replace(block_k=256), b._asdict(), BlockSizes._fields)
q, k = b
print(q, k, b == (64, 128), tuple(b), isinstance(b, tuple), type(b).__name__)
Point = collections.namedtuple("Point", "x y", defaults=[0])
p = Point(3)
print(p, Point(1, 2).y, Point._make([5, 6]), p._fields)
print({b: 1}[BlockSizes(64, 128)], BlockSizes(block_k=1, block_q=2))
# expect: BlockSizes(block_q=64, block_k=128) 64 128 192 2
# expect: BlockSizes(block_q=64, block_k=256) {'block_q': 64, 'block_k': 128} ('block_q', 'block_k')
# expect: 64 128 True (64, 128) True BlockSizes
# expect: Point(x=3, y=0) 2 Point(x=5, y=6) ('x', 'y')
# expect: 1 BlockSizes(block_q=2, block_k=1)
