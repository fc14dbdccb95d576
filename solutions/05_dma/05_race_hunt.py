# %% [markdown]
# # Race hunt: a pipeline in both directions
#
# **Goal:** the kernel below was written in a hurry. It normalises the rows of `x` (RMS
# normalisation, as in most transformer layers), fetching its input *and* writing its output
# with manual DMAs, double-buffered both ways. It has **two bugs**. Both are races that
# plain `interpret=True` would never show. Find them with the emulator's detector and fix them.
#
# ## Copies out: the same rule, the other way round
#
# With `out_specs=pl.BlockSpec(memory_space=pl.ANY)` the output also stays in HBM, and the kernel
# writes it with DMAs from a VMEM buffer: compute into `outbuf`, then start a copy from `outbuf`
# to `o_hbm`. Now the VMEM buffer is the copy's **source**, and the rule of the chapter applies
# from the other side: until that copy has been waited, the DMA engine may still be reading the
# buffer, so **writing the source of a copy in flight is a race**. The next step must not
# compute into a slot whose outgoing copy has not finished.
#
# With two output slots, the copy that last used slot `i % 2` was started two steps ago, at step
# `i - 2`. And since nothing waits for the copies started in the last two steps, the final step
# has to **drain** them, or they are still in flight when the kernel ends.
#
# ![the slots of both buffers over four steps: which copy owns each slot when](../../images/dma_race_hunt.svg)
#
# ## How races are found
#
# A race is a bug of timing: whether it corrupts anything depends on how fast the copy runs, so
# a racy kernel can pass every test on one machine and fail on another. That is why the emulator
# does not wait for wrong numbers. It keeps every copy *in flight* from its `.start()` until a
# wait takes its bytes, and it checks every load, store and new copy against the copies in
# flight:
#
# | access while a copy is in flight | verdict |
# |---|---|
# | read its destination | race: the data may not have landed |
# | write its destination | race: the copy may overwrite it |
# | write its source | race: the copy may read either value |
# | start a copy that overlaps its destination | race: which write lands last is undefined |
# | reach the end of the kernel | error: the copy was never waited |
#
# Each report names the access, the copy with the line that started it, and both grid steps.
# JAX's TPU interpret mode has a similar detector, off by default; this puzzle turns it on with
# `pltpu.InterpretParams(detect_races=True)`, and it prints `RACE DETECTED` in a notebook.
#
# ## Your task
#
# Check the file, read the first error, and fix what it points at. Then check again: the
# detector stops at the first race, so the second bug shows itself only once the first is gone.
# Keep the structure: two slots each way, and the prefetch before the wait.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

# %%
bm = 32      # rows per grid step
eps = 1e-6


def rms_norm_kernel(x_hbm, o_hbm, inbuf, outbuf, in_sems, out_sems):
    # x_hbm, o_hbm: (N, C) in HBM; inbuf, outbuf: (2, bm, C) VMEM scratch, two slots each
    # in_sems, out_sems: two DMA semaphores each, one per slot
    i = pl.program_id(0)
    n = pl.num_programs(0)
    slot = i % 2

    def fetch(step, slot):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(step * bm, bm)], inbuf.at[slot],
                                     in_sems.at[slot])

    def store(step, slot):
        return pltpu.make_async_copy(outbuf.at[slot], o_hbm.at[pl.ds(step * bm, bm)],
                                     out_sems.at[slot])

    # YOUR CODE BEGIN
    @pl.when(i == 0)
    def _warm_up():
        fetch(0, 0).start()

    @pl.when(i + 1 < n)
    def _prefetch():
        fetch(i + 1, 1 - slot).start()

    fetch(i, slot).wait()

    @pl.when(i >= 2)
    def _slot_free():
        store(i - 2, slot).wait()  # the copy that last read this output slot

    x = inbuf[slot]
    outbuf[slot] = x * jax.lax.rsqrt(jnp.mean(x * x, axis=1, keepdims=True) + eps)
    store(i, slot).start()

    @pl.when(i == n - 1)
    def _drain():
        @pl.when(i >= 1)
        def _():
            store(i - 1, 1 - slot).wait()

        store(i, slot).wait()
    # YOUR CODE END


def rms_norm(x):
    n, c = x.shape
    return pl.pallas_call(
        rms_norm_kernel,
        out_shape=jax.ShapeDtypeStruct((n, c), x.dtype),
        grid=(n // bm,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.VMEM((2, bm, c), x.dtype),
            pltpu.VMEM((2, bm, c), x.dtype),
            pltpu.SemaphoreType.DMA((2,)),
            pltpu.SemaphoreType.DMA((2,)),
        ],
        interpret=pltpu.InterpretParams(detect_races=True),
    )(x)


def reference(x):
    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=1, keepdims=True) + eps)


# %%
x = jax.random.normal(jax.random.key(550), (160, 128))
check(rms_norm(x), reference(x), atol=1e-5, rtol=1e-5, name="5 steps")

x = 3.0 * jax.random.normal(jax.random.key(551), (64, 256))
check(rms_norm(x), reference(x), atol=1e-5, rtol=1e-5, name="2 steps")

x = jax.random.normal(jax.random.key(552), (32, 128))
check(rms_norm(x), reference(x), atol=1e-5, rtol=1e-5, name="1 step")
