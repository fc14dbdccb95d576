# `pallas_check.check_counts` compares a learner's formula for what a tiling costs with what the
# emulator counted for the call: a 64 x 64 x 64 matmul in 32-blocks reads each x and y block once
# per grid step (8 steps, 4 KiB each) and writes each output block once. Wrong counts fail and say
# by how much. (An engine-only helper: real JAX has no counters; its twin prints SKIPPED.)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check_counts


def matmul_kernel(x_ref, y_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.dot(x_ref[...], y_ref[...])


M = N = K = 64
b = 32
x = jnp.ones((M, K))
y = jnp.ones((K, N))
out = pl.pallas_call(
    matmul_kernel,
    out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
    grid=(M // b, N // b, K // b),
    in_specs=[pl.BlockSpec((b, b), lambda i, j, k: (i, k)),
              pl.BlockSpec((b, b), lambda i, j, k: (k, j))],
    out_specs=pl.BlockSpec((b, b), lambda i, j, k: (i, j)),
    interpret=True,
)(x, y)
steps = (M // b) * (N // b) * (K // b)
ok = check_counts(out, grid_steps=steps, mxu_flops=2 * M * N * K,
                  hbm_bytes_read=steps * 2 * b * b * 4, hbm_bytes_written=M * N * 4,
                  name="matmul counts")
# expect: PASSED matmul counts: grid_steps 8, mxu_flops 524288, hbm_bytes_read 65536, hbm_bytes_written 16384
print(ok)  # expect: True
# Forgetting that x is re-read for every column block of the output:
ok = check_counts(out, hbm_bytes_read=M * K * 4 + steps * b * b * 4, name="x read once")
# expect: FAILED x read once: your counts differ from what the emulator measured
# expect:   hbm_bytes_read: the emulator counted 65536, you expected 49152 (16384 fewer than measured)
print(ok)  # expect: False
check_counts(out, flops=2.5)  # error: TypeError: check_counts(): `flops` must be an int, not float
