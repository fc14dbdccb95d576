# random numbers from a traced key are not on the CUDA backend yet: an error at the key
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(seed_ref, o_ref):
    key = jax.random.key(seed_ref[0])  # cuda-error: cannot run `random_seed` yet
    o_ref[...] = jax.random.bits(key, (8, 128))


seed = jnp.array([7], dtype=jnp.int32)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.uint32),
    in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM)])(seed)
print(out.shape)
