# online softmax statistics across column blocks: running max m and sum l in VMEM scratch
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def stats_kernel(x_ref, m_out, l_out, m_ref, l_ref):
    k = pl.program_id(1)

    @pl.when(k == 0)
    def _():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros_like(l_ref)

    x = x_ref[...]
    m_prev = m_ref[...]
    m_new = jnp.maximum(m_prev, jnp.max(x, axis=1, keepdims=True))
    l_ref[...] = l_ref[...] * jnp.exp(m_prev - m_new) + jnp.sum(jnp.exp(x - m_new), axis=1,
                                                                keepdims=True)
    m_ref[...] = m_new

    @pl.when(k == pl.num_programs(1) - 1)
    def _():
        m_out[...] = m_ref[...]
        l_out[...] = l_ref[...]


x = jnp.cos(jnp.arange(96).reshape(4, 24).astype(jnp.float32) * 0.7) * 3.0
x = x.at[:, 17].set(jnp.array([5.0, 6.0, 7.0, 8.0]))
col = pl.BlockSpec((2, 1), lambda i, k: (i, 0))
shapes = (jax.ShapeDtypeStruct((4, 1), jnp.float32), jax.ShapeDtypeStruct((4, 1), jnp.float32))
m, l = pl.pallas_call(stats_kernel, out_shape=shapes, grid=(2, 3),
                      in_specs=[pl.BlockSpec((2, 8), lambda i, k: (i, k))], out_specs=(col, col),
                      scratch_shapes=[pltpu.VMEM((2, 1), jnp.float32),
                                      pltpu.VMEM((2, 1), jnp.float32)], interpret=True)(x)
print(m[:, 0])  # expect: [5. 6. 7. 8.]
print(jnp.allclose(l[:, 0], jnp.sum(jnp.exp(x - m), axis=1), rtol=1e-5))  # expect: True
probs = jnp.exp(x - m) / l
print(jnp.allclose(probs, jax.nn.softmax(x, axis=1), atol=1e-6, rtol=1e-5))  # expect: True
