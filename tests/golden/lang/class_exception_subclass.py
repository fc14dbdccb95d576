# User exception classes: custom __init__ with super(), extra attributes, __str__, except by base class.
class KernelError(Exception):
    pass


class BlockError(KernelError):
    def __init__(self, block, limit):
        super().__init__(f"block {block} exceeds {limit}")
        self.block = block


class Quiet(ValueError):
    def __str__(self):
        return "quiet!"


try:
    raise BlockError(512, 256)
except KernelError as e:
    print(type(e).__name__, e, e.block, e.args)
try:
    raise Quiet("ignored")
except ValueError as e:
    print(e, repr(KernelError("x")), isinstance(e, Exception))
# expect: BlockError block 512 exceeds 256 512 ('block 512 exceeds 256',)
# expect: quiet! KernelError('x') True
