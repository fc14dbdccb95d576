# Arrays as raw little-endian bytes in C order: tobytes() and np.frombuffer.
import numpy as np
import jax.numpy as jnp

x = np.array([1.5, -2.0], dtype=np.float32)
print(x.tobytes())  # expect: b'\x00\x00\xc0?\x00\x00\x00\xc0'
m = np.array([[1, 2], [3, 4]], dtype=np.int16)
print(m.T.tobytes())  # expect: b'\x01\x00\x03\x00\x02\x00\x04\x00'
print(m.tobytes(order="F") == m.T.tobytes())  # expect: True
print(np.array([True, False, True]).tobytes(), np.uint8(7).tobytes())
# expect: b'\x01\x00\x01' b'\x07'
print(jnp.array([1, 2], dtype=jnp.int16).tobytes())  # expect: b'\x01\x00\x02\x00'
print(jnp.array([1.0, -0.5], dtype=jnp.bfloat16).tobytes())  # expect: b'\x80?\x00\xbf'
raw = np.arange(6, dtype=np.int32).tobytes()
print(len(raw), raw[:8])  # expect: 24 b'\x00\x00\x00\x00\x01\x00\x00\x00'
back = np.frombuffer(raw, dtype=np.int32)
print(repr(back))  # expect: array([0, 1, 2, 3, 4, 5], dtype=int32)
print(np.frombuffer(b"abcd", dtype=np.uint8, count=2, offset=1))  # expect: [98 99]
print(np.frombuffer(b"\x00\x3c\x00\xc0", dtype=np.float16))  # expect: [ 1. -2.]
key = {x.tobytes(): "cached"}
print(key[np.array([1.5, -2.0], dtype=np.float32).tobytes()])  # expect: cached
try:
    np.frombuffer(b"abc", dtype=np.int16)
except ValueError as e:
    print(e)  # expect: buffer size must be a multiple of element size
