# args: --semantics interpret
# jax.random calls that JAX's interpret mode runs inside a kernel but Mosaic cannot lower for a
# TPU (split, randint and permutation record random_split; bfloat16 and uint8 draws are narrower
# than 32 bits): under `--semantics interpret` they run and match real JAX bit for bit (see
# fail_kernel_random_split_unlowerable.py and fail_kernel_random_narrow_bits.py for `tpu`).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(seed_ref, s_ref, r_ref, p_ref, h_ref, b_ref):
    key = jax.random.key(seed_ref[0])
    k1, k2 = jax.random.split(key)
    s_ref[...] = jax.random.uniform(k2, s_ref.shape)
    r_ref[...] = jax.random.randint(k1, r_ref.shape, -5, 10)
    p_ref[...] = jnp.broadcast_to(jax.random.permutation(key, 128), p_ref.shape)
    h_ref[...] = jax.random.uniform(key, h_ref.shape, dtype=jnp.bfloat16).astype(jnp.float32)
    b_ref[...] = jax.random.bits(key, b_ref.shape, jnp.uint8).astype(jnp.int32)


def spec():
    return pl.BlockSpec((8, 128), lambda i, s: (0, 0))


f32 = jax.ShapeDtypeStruct((8, 128), jnp.float32)
i32 = jax.ShapeDtypeStruct((8, 128), jnp.int32)
s, r, p, h, b = pl.pallas_call(
    kernel,
    out_shape=(f32, i32, i32, f32, i32),
    grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(1,), in_specs=[],
                                           out_specs=tuple(spec() for _ in range(5))),
    interpret=True)(jnp.array([7], jnp.int32))
print(s[0, :4])
print(r[0, :10], r.min(), r.max())
print(p[0, :10], bool((jnp.sort(p[0]) == jnp.arange(128)).all()))
print(h[0, :4])
print(b[0, :8])
# expect: [0.6751336 0.8261764 0.3939867 0.4243201]
# expect: [9 1 7 7 5 5 9 2 5 5] -5 9
# expect: [ 45  53 119  10  96   9  17  67  85  81] True
# expect: [0.0390625 0.        0.6640625 0.1875   ]
# expect: [ 11   0 170  48 134 107  88 106]
