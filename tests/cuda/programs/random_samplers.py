# Random numbers on both backends, bit for bit: jax.random's keys (key, PRNGKey, fold_in of a
# program id and of a traced value), bits, uniform with bounds broadcast against the block (one
# per row, one per column), normal and bernoulli; and the core generator with two seeds, draws
# of two shapes and a stateful sampler between them.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(seed_ref, lo_ref, hi_ref, u_ref, n_ref, b_ref, k_ref, p_ref, s_ref):
    i = pl.program_id(0)
    key = jax.random.fold_in(jax.random.key(seed_ref[0]), i)
    u_ref[...] = jax.random.uniform(key, u_ref.shape, minval=lo_ref[...], maxval=hi_ref[...])
    n_ref[...] = jax.random.normal(jax.random.fold_in(key, seed_ref[1] * i), n_ref.shape)
    b_ref[...] = jax.random.bernoulli(jax.random.fold_in(key, 1), 0.3, b_ref.shape).astype(
        jnp.int32)
    k_ref[...] = jax.random.bits(jax.random.PRNGKey(seed_ref[1] - i), k_ref.shape).astype(
        jnp.int32)
    pltpu.prng_seed(seed_ref[0], i, 99)
    first = pltpu.prng_random_bits((8, 256))
    s_ref[...] = pltpu.stateful_uniform(s_ref.shape, minval=-3.0, maxval=-1.0)
    p_ref[...] = pltpu.prng_random_bits(p_ref.shape) ^ first[:, 100:228]


block = pl.BlockSpec((8, 128), lambda i, s: (i, 0))
rows = pl.BlockSpec((8, 1), lambda i, s: (i, 0))
cols = pl.BlockSpec((1, 128), lambda i, s: (0, 0))
f32 = jax.ShapeDtypeStruct((16, 128), jnp.float32)
i32 = jax.ShapeDtypeStruct((16, 128), jnp.int32)
u, n, b, k, p, s = pl.pallas_call(
    kernel, out_shape=(f32, f32, i32, i32, i32, f32),
    grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(2,),
                                           in_specs=[rows, cols], out_specs=(block,) * 6),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(
        jnp.array([2024, -3], jnp.int32),
        jnp.linspace(-4.0, 0.0, 16, dtype=jnp.float32).reshape(16, 1),
        jnp.linspace(1.0, 500.0, 128, dtype=jnp.float32).reshape(1, 128))
print(u[0, :4], u[9, 124:])
print(n[3, :4], n[12, -3:], float(n.max()))
print(b[5, :12], int(b.sum()))
print(k[0, :3], k[8, :3])
print(p[0, :3], p[8, :3])
print(s[6, :4], float(s.min()) >= -3.0, float(s.max()) < -1.0)
