# input_output_aliases: blocks the kernel never writes keep the aliased input's values
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...] * 10.0


x = jnp.arange(12).astype(jnp.float32)
# a grid of 2 steps that only touches blocks 2 and 0 of 3
spec = pl.BlockSpec((4,), lambda i: (2 - 2 * i,))
out = pl.pallas_call(negate_kernel, out_shape=jax.ShapeDtypeStruct((12,), jnp.float32), grid=(2,),
                     in_specs=[spec], out_specs=spec, input_output_aliases={0: 0},
                     interpret=True)(x)
print(out)
print(x)


# alias the second input: only row 1 of the output is written, rows 0 and 2 keep `base`
def fill_kernel(v_ref, base_ref, o_ref):
    o_ref[...] = v_ref[...] + base_ref[...]


base = jnp.array([[7.0, 7.0, 7.0, 7.0], [1.0, 1.0, 1.0, 1.0], [8.0, 8.0, 8.0, 8.0]])
rows = jnp.array([[1.0, 2.0, 3.0, 4.0]])
row1 = pl.BlockSpec((1, 4), lambda i: (1, 0))
res = pl.pallas_call(fill_kernel, out_shape=jax.ShapeDtypeStruct((3, 4), jnp.float32), grid=(1,),
                     in_specs=[pl.BlockSpec((1, 4), lambda i: (0, 0)), row1], out_specs=row1,
                     input_output_aliases={1: 0}, interpret=True)(rows, base)
print(res)
# expect: [  -0.  -10.  -20.  -30.    4.    5.    6.    7.  -80.  -90. -100. -110.]
# expect: [ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11.]
# expect: [[7. 7. 7. 7.]
# expect:  [2. 3. 4. 5.]
# expect:  [8. 8. 8. 8.]]
