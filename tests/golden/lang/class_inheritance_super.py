# Single inheritance: overriding, super() with and without arguments, class attributes through the chain.
class Kernel:
    name = "kernel"

    def __init__(self, block):
        self.block = block

    def describe(self):
        return f"{self.name}[{self.block}]"


class Matmul(Kernel):
    name = "matmul"

    def __init__(self, block, k):
        super().__init__(block)
        self.k = k

    def describe(self):
        return super().describe() + f" k={self.k}"


class Tiled(Matmul):
    def describe(self):
        return "tiled " + super(Tiled, self).describe()


m = Tiled(128, 512)
print(m.describe())
print(Matmul(8, 16).describe(), Kernel(4).describe())
print(isinstance(m, Kernel), issubclass(Tiled, Matmul), issubclass(Kernel, Tiled))
print([c.__name__ for c in Tiled.__mro__])
# expect: tiled matmul[128] k=512
# expect: matmul[8] k=16 kernel[4]
# expect: True True False
# expect: ['Tiled', 'Matmul', 'Kernel', 'object']
