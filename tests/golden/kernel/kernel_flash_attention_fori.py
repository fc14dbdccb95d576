# causal flash attention forward: per q block, lax.fori_loop over kv blocks with pl.ds and masking
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def flash_kernel(q_ref, k_ref, v_ref, o_ref, *, bq, bk):
    qi = pl.program_id(0)
    q = q_ref[...] / q_ref.shape[1] ** 0.5

    def compute(j, carry):
        m, l, acc = carry
        k = k_ref[pl.ds(j * bk, bk), :]
        s = lax.dot_general(q, k, (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32)
        rows = qi * bq + lax.broadcasted_iota(jnp.int32, s.shape, 0)
        cols = j * bk + lax.broadcasted_iota(jnp.int32, s.shape, 1)
        s = jnp.where(rows >= cols, s, -jnp.inf)
        m_new = jnp.maximum(m, jnp.max(s, axis=1, keepdims=True))
        p = jnp.exp(s - m_new)
        alpha = jnp.exp(m - m_new)
        pv = p @ v_ref[pl.ds(j * bk, bk), :]
        return m_new, alpha * l + jnp.sum(p, axis=1, keepdims=True), alpha * acc + pv

    def body(j, carry):  # kv blocks entirely above the diagonal are skipped
        skip = j * bk > qi * bq + bq - 1
        return lax.cond(skip, lambda c: c, functools.partial(compute, j), carry)

    init = (jnp.full((bq, 1), -jnp.inf, jnp.float32), jnp.zeros((bq, 1), jnp.float32),
            jnp.zeros(q.shape, jnp.float32))
    m, l, acc = lax.fori_loop(0, k_ref.shape[0] // bk, body, init)
    o_ref[...] = acc / l


T, D = 16, 8
q = jnp.sin(jnp.arange(T * D).reshape(T, D) * 0.37)
k = jnp.cos(jnp.arange(T * D).reshape(T, D) * 0.23)
v = jnp.sin(jnp.arange(T * D).reshape(T, D) * 0.11 + 1.0)
whole = pl.BlockSpec((T, D), lambda i: (0, 0))
out = pl.pallas_call(functools.partial(flash_kernel, bq=4, bk=4), grid=(T // 4,),
                     out_shape=jax.ShapeDtypeStruct((T, D), jnp.float32),
                     in_specs=[pl.BlockSpec((4, D), lambda i: (i, 0)), whole, whole],
                     out_specs=pl.BlockSpec((4, D), lambda i: (i, 0)), interpret=True)(q, k, v)
s = jnp.where(jnp.tril(jnp.ones((T, T), bool)), q @ k.T / D ** 0.5, -jnp.inf)
print(out.shape, jnp.allclose(out, jax.nn.softmax(s, axis=-1) @ v, atol=1e-5, rtol=1e-5))  # expect: (16, 8) True
print(jnp.allclose(out[0], v[0], atol=1e-6))  # expect: True
