# a matmul over pl.ANY inputs, pipelined by hand: the K loop prefetches the next pair of tiles
# into the other slot while the current pair is multiplied
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

M, K, N, BM, BK = 16, 32, 8, 8, 8


def kernel(x_hbm, y_hbm, o_ref, xbuf, ybuf, sems):
    m = pl.program_id(0)
    nk = K // BK

    def copies(k, slot):
        return (pltpu.make_async_copy(x_hbm.at[pl.ds(m * BM, BM), pl.ds(k * BK, BK)],
                                      xbuf.at[slot], sems.at[0, slot]),
                pltpu.make_async_copy(y_hbm.at[pl.ds(k * BK, BK), :], ybuf.at[slot],
                                      sems.at[1, slot]))

    for c in copies(0, 0):
        c.start()

    def body(k, acc):
        slot = k % 2

        @pl.when(k + 1 < nk)
        def _():
            for c in copies(k + 1, 1 - slot):
                c.start()

        for c in copies(k, slot):
            c.wait()
        return acc + jnp.dot(xbuf[slot], ybuf[slot], preferred_element_type=jnp.float32)

    o_ref[...] = jax.lax.fori_loop(0, nk, body, jnp.zeros((BM, N), jnp.float32))


x = jnp.arange(M * K, dtype=jnp.float32).reshape(M, K) / 64.0
y = jnp.arange(K * N, dtype=jnp.float32).reshape(K, N) / 32.0
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
    grid=(M // BM,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec((BM, N), lambda m: (m, 0)),
    scratch_shapes=[pltpu.VMEM((2, BM, BK), jnp.float32), pltpu.VMEM((2, BK, N), jnp.float32),
                    pltpu.SemaphoreType.DMA((2, 2))],
    interpret=True,
)(x, y)
print(jnp.allclose(out, x @ y))
print(out[0, :4])
print(out[15, 4:])
# expect: True
# expect: [40.6875   40.929688 41.171875 41.414062]
# expect: [1001.65625 1009.39844 1017.1406  1024.8828 ]
