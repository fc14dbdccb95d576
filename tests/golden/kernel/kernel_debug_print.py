# jax.debug.print inside a kernel prints at every grid step, in grid order
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    i = pl.program_id(0)
    j = pl.program_id(1)
    jax.debug.print("step {i} {j}", i=i, j=j)
    jax.debug.print("block {} sum {}", x_ref[...], jnp.sum(x_ref[...]))
    o_ref[...] = x_ref[...] * 2


print("before")
x = jnp.arange(8, dtype=jnp.int32).reshape(2, 4)
spec = pl.BlockSpec((1, 2), lambda i, j: (i, j))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 4), jnp.int32), grid=(2, 2),
                     in_specs=[spec], out_specs=spec, interpret=True)(x)
print("after")
print(out)


def float_kernel(x_ref, o_ref):
    jax.debug.print("x = {x}", x=x_ref[...])
    jax.debug.print("first {:.2f} max {m}", x_ref[0], m=jnp.max(x_ref[...]))
    o_ref[...] = x_ref[...]


y = jnp.array([0.5, -1.25, 3.0])
res = pl.pallas_call(float_kernel, out_shape=jax.ShapeDtypeStruct((3,), jnp.float32),
                     interpret=True)(y)
print(res)
# expect: before
# expect: step 0 0
# expect: block [[0 1]] sum 1
# expect: step 0 1
# expect: block [[2 3]] sum 5
# expect: step 1 0
# expect: block [[4 5]] sum 9
# expect: step 1 1
# expect: block [[6 7]] sum 13
# expect: after
# expect: [[ 0  2  4  6]
# expect:  [ 8 10 12 14]]
# expect: x = [ 0.5  -1.25  3.  ]
# expect: first 0.50 max 3.0
# expect: [ 0.5  -1.25  3.  ]
