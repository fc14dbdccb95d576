# a dict scratch_shapes is passed to the kernel as keyword arguments
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, *, acc, best):
    k = pl.program_id(1)

    @pl.when(k == 0)
    def _():
        acc[...] = jnp.zeros_like(acc)
        best[...] = jnp.full(best.shape, -jnp.inf, jnp.float32)

    acc[...] += jnp.sum(x_ref[...], axis=1, keepdims=True)
    best[...] = jnp.maximum(best[...], jnp.max(x_ref[...], axis=1, keepdims=True))

    @pl.when(k == pl.num_programs(1) - 1)
    def _():
        o_ref[...] = jnp.concatenate([acc[...], best[...]], axis=1)


x = (jnp.arange(24).reshape(4, 6) * 7 % 11 - 5).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 2), jnp.float32), grid=(2, 3),
                     in_specs=[pl.BlockSpec((2, 2), lambda i, k: (i, k))],
                     out_specs=pl.BlockSpec((2, 2), lambda i, k: (i, 0)),
                     scratch_shapes={"best": pltpu.VMEM((2, 1), jnp.float32),
                                     "acc": pltpu.VMEM((2, 1), jnp.float32)},
                     interpret=True)(x)
print(out)
# expect: [[-2.  5.]
# expect:  [-3.  4.]
# expect:  [ 7.  5.]
# expect:  [-5.  3.]]
