# jax.random inside a kernel, keyed by a seed read from SMEM: each grid step folds its program id
# into the key, so every block draws its own stream. These samplers record random_seed,
# random_fold_in, random_bits and the sampler's step, which Mosaic lowers for a TPU; the values
# match real JAX's interpret mode bit for bit.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(seed_ref, u_ref, n_ref, b_ref, k_ref):
    key = jax.random.fold_in(jax.random.key(seed_ref[0]), pl.program_id(0))
    u_ref[...] = jax.random.uniform(key, u_ref.shape, minval=-2.0, maxval=3.0)
    n_ref[...] = jax.random.normal(jax.random.fold_in(key, 7), n_ref.shape)
    keep = jax.random.bernoulli(jax.random.fold_in(key, 8), 0.25, b_ref.shape)
    b_ref[...] = keep.astype(jnp.int32)
    legacy = jax.random.PRNGKey(seed_ref[0] + 1)
    k_ref[...] = jax.random.bits(legacy, k_ref.shape).astype(jnp.int32)


block = pl.BlockSpec((8, 128), lambda i, s: (i, 0))
shape = jax.ShapeDtypeStruct((16, 128), jnp.float32)
ishape = jax.ShapeDtypeStruct((16, 128), jnp.int32)
u, n, b, k = pl.pallas_call(
    kernel,
    out_shape=(shape, shape, ishape, ishape),
    grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(2,), in_specs=[],
                                           out_specs=(block, block, block, block)),
    interpret=True)(jnp.array([42], jnp.int32))
print(u[0, :4], u[8, :4])
print(n[0, :4], n[8, :4])
print(b[0, :12], b.sum())
print(k[0, :3], k[8, :3])
# The same draws outside the kernel.
key1 = jax.random.fold_in(jax.random.key(42), 1)
print(bool((jax.random.uniform(key1, (8, 128), minval=-2.0, maxval=3.0) == u[8:]).all()))
print(bool((jax.random.normal(jax.random.fold_in(key1, 7), (8, 128)) == n[8:]).all()))
# expect: [ 0.651304  -0.4331894  2.5076513  1.4916645] [ 1.6383212  1.9393377 -1.0915287 -0.6868489]
# expect: [0.10951076 0.354402   0.57951605 1.4576088 ] [-0.08955192 -0.34915227 -0.31886816 -0.9382786 ]
# expect: [0 0 1 0 0 0 0 1 0 0 0 0] 505
# expect: [-2018744793 -1854345332  -859633781] [-2018744793 -1854345332  -859633781]
# expect: True
# expect: True
