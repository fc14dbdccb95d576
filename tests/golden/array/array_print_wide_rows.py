# long rows wrap at 75 characters like numpy
import jax.numpy as jnp

print(jnp.arange(30))
# expect: [ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
# expect:  24 25 26 27 28 29]
print(jnp.arange(12) / 7)
# expect: [0.         0.14285715 0.2857143  0.42857146 0.5714286  0.71428573
# expect:  0.8571429  1.         1.1428572  1.2857144  1.4285715  1.5714287 ]
print(repr(jnp.arange(25.0)))
# expect: Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,
# expect:        13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24.],      dtype=float32)
