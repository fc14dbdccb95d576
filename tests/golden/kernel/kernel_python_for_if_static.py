# Python `for` and `if` on static values run at trace time and unroll into the kernel
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

NEGATE_ODD = True


def rows_kernel(x_ref, o_ref):
    rows, cols = x_ref.shape
    for r in range(rows):
        row = x_ref[r, :]
        if r % 2 == 0:
            o_ref[r, :] = row * (r + 1)
        elif NEGATE_ODD:
            o_ref[r, :] = -row
        else:
            o_ref[r, :] = row
    if cols > 2:
        o_ref[0, 0] = 99.0


x = jnp.arange(12).reshape(4, 3).astype(jnp.float32)
out = pl.pallas_call(rows_kernel, out_shape=jax.ShapeDtypeStruct((4, 3), jnp.float32),
                     interpret=True)(x)
print(out)

# the same kernel on blocks of 2 rows: the loop now runs over 2 rows per step
spec = pl.BlockSpec((2, 3), lambda i: (i, 0))
out2 = pl.pallas_call(rows_kernel, out_shape=jax.ShapeDtypeStruct((4, 3), jnp.float32),
                      grid=(2,), in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out2)
# expect: [[ 99.   1.   2.]
# expect:  [ -3.  -4.  -5.]
# expect:  [ 18.  21.  24.]
# expect:  [ -9. -10. -11.]]
# expect: [[ 99.   1.   2.]
# expect:  [ -3.  -4.  -5.]
# expect:  [ 99.   7.   8.]
# expect:  [ -9. -10. -11.]]
