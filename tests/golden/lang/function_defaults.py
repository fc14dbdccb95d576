# Default parameter values and keyword arguments.
def block_shape(rows, cols=128, dtype="f32"):
    return f"({rows}, {cols}) {dtype}"


print(block_shape(8))  # expect: (8, 128) f32
print(block_shape(8, 256))  # expect: (8, 256) f32
print(block_shape(8, dtype="bf16"))  # expect: (8, 128) bf16
print(block_shape(cols=64, rows=16))  # expect: (16, 64) f32
print(block_shape(dtype="i8", cols=1, rows=2))  # expect: (2, 1) i8
N = 10


def scaled(x, factor=N * 2):
    return x * factor


N = 1000
print(scaled(2))  # expect: 40
