# %% [markdown]
# # Loops inside a kernel
#
# **Goal:** a matmul where each grid step receives a whole strip of `K` and walks along it
# with `lax.fori_loop`, reading one chunk at a time with `pl.ds`.
#
# ## Two places to loop
#
# Every loop so far was the grid: Pallas ran the kernel once per step and moved the blocks
# between steps. The grid is the right loop for data that must stream through HBM. But when
# the data a step needs already fits in VMEM, it is often better to bring it in once and loop
# *inside* the kernel:
#
# - a grid step has a fixed cost (the pipeline's bookkeeping and copy set-up), so many tiny
#   steps waste time;
# - inside one step, the running sum can stay a **value**, which the compiler keeps in
#   registers where it can, instead of a scratch ref stored and loaded on every iteration;
# - some kernels need a whole strip at once anyway (attention keeps a whole key block and walks
#   over it).
#
# Here each grid step `(i, j)` gets the strip `a[i*bm:(i+1)*bm, :]` of shape `(bm, K)` and the
# strip `b[:, j*bn:(j+1)*bn]` of shape `(K, bn)`, and sums `K // bk` chunk products itself.
#
# ![the kernel walks along the K strip in chunks of bk, carrying the sum](../../images/basics_fori.svg)
#
# ## `lax.fori_loop`
#
# A Python `for` loop in a kernel runs while the kernel is *traced*: a loop of 100 iterations
# pastes 100 copies of its body into the kernel. `lax.fori_loop(lower, upper, body, init)` is
# a real loop instead: the body is traced once, and runs at kernel time.
#
# ```python
# def body(c, carry):           # c: the iteration index (traced int32); carry: the loop state
#     return carry + something  # the new state, same shape and dtype as before
#
# result = lax.fori_loop(0, n, body, init)
# ```
#
# The carry can be an array, such as a `(bm, bn)` float32 accumulator.
#
# ## `pl.ds`: a slice whose start is only known at run time
#
# Inside `body`, `c` is traced, so `a_ref[:, c * bk:(c + 1) * bk]` cannot work: a slice
# needs its size at trace time, and with traced bounds the tracer cannot see that the size is
# always `bk`. `pl.ds(start, size)` (for *dynamic slice*) separates the two: the `start` may
# be traced, the `size` is a fixed Python int.
#
# ```python
# start = pl.multiple_of(c * bk, bk)      # optional: tells the compiler start is aligned
# chunk = a_ref[:, pl.ds(start, bk)]      # columns start .. start + bk - 1, shape (bm, bk)
# ```
#
# A worked example with `bk = 128`: iteration `c = 2` reads columns `256:384` of `a_ref` and
# rows `256:384` of `b_ref`. Only the load is dynamic: nothing is copied from HBM inside the
# loop, because the whole strip is already in VMEM.

# %%
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from pallas_check import check

# %%
bm, bn = 128, 128  # output block shape
bk = 128  # chunk of K per loop iteration


def strip_matmul_kernel(a_ref, b_ref, o_ref):
    # a_ref: (bm, K) strip, b_ref: (K, bn) strip, o_ref: (bm, bn)
    K = a_ref.shape[1]  # static: the ref's shape is known when the kernel is traced
    # YOUR CODE BEGIN
    def body(c, acc):
        start = pl.multiple_of(c * bk, bk)
        a = a_ref[:, pl.ds(start, bk)]
        b = b_ref[pl.ds(start, bk), :]
        return acc + jnp.dot(a, b, preferred_element_type=jnp.float32)

    acc = lax.fori_loop(0, K // bk, body, jnp.zeros((bm, bn), jnp.float32))
    o_ref[...] = acc.astype(o_ref.dtype)
    # YOUR CODE END


def strip_matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    return pl.pallas_call(
        strip_matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), a.dtype),
        grid=(M // bm, N // bn),
        in_specs=[
            pl.BlockSpec((bm, K), lambda i, j: (i, 0)),
            pl.BlockSpec((K, bn), lambda i, j: (0, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(a, b)


# %%
a = jax.random.normal(jax.random.key(140), (256, 512))
b = jax.random.normal(jax.random.key(141), (512, 256))
check(strip_matmul(a, b), a @ b, atol=1e-3, rtol=1e-3, name="grid (2, 2), 4 chunks")

a = jax.random.normal(jax.random.key(142), (128, 384))
b = jax.random.normal(jax.random.key(143), (384, 256))
check(strip_matmul(a, b), a @ b, atol=1e-3, rtol=1e-3, name="grid (1, 2), 3 chunks")
