# jax.random.split records random_split, which Mosaic cannot lower for a TensorCore: in `tpu`
# semantics the kernel fails at the call, in Mosaic's words (real JAX raises this when it
# compiles the kernel for a TPU; its interpret mode runs it, see kernel_random_interpret.py).
# A kernel derives fresh keys with jax.random.fold_in instead.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(seed_ref, o_ref):
    _, sub = jax.random.split(jax.random.key(seed_ref[0]))  # error: NotImplementedError: Unimplemented primitive in Pallas TPU lowering for tc: random_split.
    o_ref[...] = jax.random.uniform(sub, o_ref.shape)


out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(1,), in_specs=[],
        out_specs=pl.BlockSpec((8, 128), lambda i, s: (0, 0))),
    interpret=True)(jnp.array([7], jnp.int32))
print(out[0, :2])
