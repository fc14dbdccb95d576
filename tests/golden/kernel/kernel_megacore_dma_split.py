# args: --cores 2
# megacore with manual DMAs: each step copies its block into its own window of a pl.ANY output,
# so the two TensorCores never touch the same HBM elements
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def double_kernel(x_ref, o_hbm, buf, sem):
    i = pl.program_id(0)
    buf[...] = x_ref[...] * 2.0
    copy = pltpu.make_async_copy(buf, o_hbm.at[pl.ds(i * 8, 8)], sem)
    copy.start()
    copy.wait()


x = jnp.arange(32, dtype=jnp.float32)
out = pl.pallas_call(
    double_kernel,
    out_shape=jax.ShapeDtypeStruct((32,), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec((8,), lambda i: (i,))],
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    interpret=True,
)(x)
print(out)
# expect: [ 0.  2.  4.  6.  8. 10. 12. 14. 16. 18. 20. 22. 24. 26. 28. 30. 32. 34.
# expect:  36. 38. 40. 42. 44. 46. 48. 50. 52. 54. 56. 58. 60. 62.]
