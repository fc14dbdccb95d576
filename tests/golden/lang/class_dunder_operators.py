# Operators, comparisons, len, iter, in, indexing, calls and hashing dispatch to dunder methods.
class Vec:
    def __init__(self, *xs):
        self.xs = list(xs)

    def __repr__(self):
        return f"Vec{tuple(self.xs)}"

    def __add__(self, other):
        return Vec(*[a + b for a, b in zip(self.xs, other.xs)])

    def __rmul__(self, k):
        return Vec(*[k * x for x in self.xs])

    def __neg__(self):
        return Vec(*[-x for x in self.xs])

    def __eq__(self, other):
        return isinstance(other, Vec) and self.xs == other.xs

    def __hash__(self):
        return hash(tuple(self.xs))

    def __lt__(self, other):
        return sum(self.xs) < sum(other.xs)

    def __len__(self):
        return len(self.xs)

    def __iter__(self):
        return iter(self.xs)

    def __getitem__(self, i):
        return self.xs[i]

    def __contains__(self, x):
        return x in self.xs

    def __call__(self, k):
        return self.xs[k] * 10


v = Vec(1, 2)
print(v + Vec(3, 4), 3 * v, -v, v == Vec(1, 2), v != Vec(1, 2))
print(len(v), list(v), v[1], 2 in v, 5 in v, v(0), bool(Vec()))
print(Vec(5) > Vec(1), sorted([Vec(3), Vec(1), Vec(2)]), {Vec(1, 2): "hit"}[v])
print(max(Vec(2), Vec(7)), str(v), f"{v}")
# expect: Vec(4, 6) Vec(3, 6) Vec(-1, -2) True False
# expect: 2 [1, 2] 2 True False 10 False
# expect: True [Vec(1,), Vec(2,), Vec(3,)] hit
# expect: Vec(7,) Vec(1, 2) Vec(1, 2)
