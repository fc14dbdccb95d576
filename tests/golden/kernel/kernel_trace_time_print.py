# the kernel body is traced once: Python print and side effects run once, jax.debug.print per step
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

calls = []


def kernel(x_ref, o_ref):
    calls.append(x_ref.shape)
    print("tracing kernel, block", x_ref.shape, "of", pl.num_programs(0), "steps")
    jax.debug.print("running step {}", pl.program_id(0))
    o_ref[...] = x_ref[...] + 1


x = jnp.arange(6, dtype=jnp.int32)
spec = pl.BlockSpec((2,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((6,), jnp.int32), grid=(3,),
                     in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out)
print("kernel traced", len(calls), "time(s)")
# expect: tracing kernel, block (2,) of 3 steps
# expect: running step 0
# expect: running step 1
# expect: running step 2
# expect: [1 2 3 4 5 6]
# expect: kernel traced 1 time(s)
