# The TPU core's own random number generator: pltpu.prng_seed and pltpu.prng_random_bits, and
# the stateful samplers built on them. Real JAX cannot run this on a CPU (its interpret mode has
# no generator: see fail_kernel_prng_interpret.py), and a TPU's bits are its own, so this file
# checks what holds on any core: the same seeds give the same bits, other seeds other bits, the
# draws move on within a grid step, and the samples have the right distribution.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(seed_ref, bits_ref, again_ref, next_ref, u_ref, n_ref, b_ref):
    pltpu.prng_seed(seed_ref[0], pl.program_id(0))
    bits_ref[...] = pltpu.prng_random_bits(bits_ref.shape)
    next_ref[...] = pltpu.prng_random_bits(next_ref.shape)
    pltpu.prng_seed(seed_ref[0], pl.program_id(0))
    again_ref[...] = pltpu.prng_random_bits(again_ref.shape)
    u_ref[...] = pltpu.stateful_uniform(u_ref.shape, minval=1.0, maxval=3.0)
    n_ref[...] = pltpu.stateful_normal(n_ref.shape)
    b_ref[...] = pltpu.stateful_bernoulli(0.25, b_ref.shape).astype(jnp.float32)


block = pl.BlockSpec((64, 128), lambda i, s: (i, 0))
i32 = jax.ShapeDtypeStruct((128, 128), jnp.int32)
f32 = jax.ShapeDtypeStruct((128, 128), jnp.float32)
bits, again, following, u, n, b = pl.pallas_call(
    kernel,
    out_shape=(i32, i32, i32, f32, f32, f32),
    grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(2,), in_specs=[],
                                           out_specs=(block,) * 6),
    interpret=True)(jnp.array([1234], jnp.int32))
print(bits.dtype, u.dtype)  # expect: int32 float32
print(bool((bits == again).all()))  # expect: True
print(bool((bits == following).any(axis=1).any()), bool((bits[:64] == bits[64:]).any()))  # expect: False False
print(bool(u.min() >= 1.0), bool(u.max() < 3.0), bool(abs(u.mean() - 2.0) < 0.02))  # expect: True True True
print(bool(abs(n.mean()) < 0.02), bool(abs(n.std() - 1.0) < 0.02))  # expect: True True
print(bool(abs(b.mean() - 0.25) < 0.01))  # expect: True
# Each bit of the draws is set about half of the time.
ones = [float(((bits >> k) & 1).mean()) for k in range(32)]
print(bool(min(ones) > 0.48), bool(max(ones) < 0.52))  # expect: True True
