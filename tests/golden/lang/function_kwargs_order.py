# **kwargs collects extra keyword arguments into a dict, in call order.
def describe(name, **options):
    parts = [f"{k}={v!r}" for k, v in options.items()]
    return name + "(" + ", ".join(parts) + ")"


print(describe("BlockSpec", block_shape=(8, 128), index_map=None))
# expect: BlockSpec(block_shape=(8, 128), index_map=None)
print(describe("empty"))  # expect: empty()
print(describe("z", b=2, a=1))  # expect: z(b=2, a=1)


def everything(a, b=2, *args, c, d=4, **kwargs):
    return a, b, args, c, d, kwargs


print(everything(1, c=3))  # expect: (1, 2, (), 3, 4, {})
print(everything(1, 5, 6, 7, c=8, e=9, d=0))  # expect: (1, 5, (6, 7), 8, 0, {'e': 9})
