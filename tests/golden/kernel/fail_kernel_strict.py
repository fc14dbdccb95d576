# args: --strict
# with --strict (for kernel authors' CI), the emulator's warnings are errors and the run exits
# 70: here uninitialised memory reaching the output and output blocks no grid step wrote. The
# program still runs to the end, so its output is printed. (Real JAX prints the same lines and
# reports neither.)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def accumulate(x_ref, o_ref):
    o_ref[...] += x_ref[...]  # error: uninitialised


def first_half(x_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[...] = x_ref[...]


x = jnp.arange(16).reshape(2, 8).astype(jnp.float32)
out = pl.pallas_call(accumulate, out_shape=jax.ShapeDtypeStruct((2, 4), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((2, 4), lambda k: (0, k))],
                     out_specs=pl.BlockSpec((2, 4), lambda k: (0, 0)), interpret=True)(x)
print(out.shape, out.dtype)  # expect: (2, 4) float32
half = pl.pallas_call(first_half, out_shape=jax.ShapeDtypeStruct((2, 8), jnp.float32), grid=(2,),  # error:
                      in_specs=[pl.BlockSpec((2, 4), lambda k: (0, k))],
                      out_specs=pl.BlockSpec((2, 4), lambda k: (0, k)), interpret=True)(x)
print(half[:, :4])
# expect: [[ 0.  1.  2.  3.]
# expect:  [ 8.  9. 10. 11.]]
