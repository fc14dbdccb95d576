# several DMAs in flight at once, each on its own element of a DMA semaphore array (`.at[i]`)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sems):
    copies = []
    for r in range(4):
        # rows of x in reverse order
        copy = pltpu.make_async_copy(x_hbm.at[3 - r], buf.at[r], sems.at[r])
        copy.start()
        copies.append(copy)
    for copy in copies:
        copy.wait()
    o_ref[...] = buf[...] + 1


x = jnp.arange(32, dtype=jnp.int32).reshape(4, 8)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((4, 8), jnp.int32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((4, 8), jnp.int32), pltpu.SemaphoreType.DMA((4,))],
    interpret=True,
)(x)
print(out)
# expect: [[25 26 27 28 29 30 31 32]
# expect:  [17 18 19 20 21 22 23 24]
# expect:  [ 9 10 11 12 13 14 15 16]
# expect:  [ 1  2  3  4  5  6  7  8]]
