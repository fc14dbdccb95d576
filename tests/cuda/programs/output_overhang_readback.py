# A block that overhangs the array's end keeps what the kernel stores in the overhang, and a load
# there reads it back (the emulated TPU's VMEM buffer). With no shared memory to plan for (the
# same_global tests) the CUDA backend once read and wrote such an output in HBM in place, where
# stores past the end go nowhere and the read-back got fresh memory instead.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(o_ref, last_ref):
    o_ref[...] = jnp.full((8, 128), pl.program_id(0) + 1.0, jnp.float32)
    last_ref[...] = o_ref[7:8, :] * 10.0


out, last = pl.pallas_call(
    kernel,
    out_shape=(jax.ShapeDtypeStruct((10, 128), jnp.float32),
               jax.ShapeDtypeStruct((2, 128), jnp.float32)),
    grid=(2,),
    out_specs=(pl.BlockSpec((8, 128), lambda i: (i, 0)), pl.BlockSpec((1, 128), lambda i: (i, 0))),
    interpret=pltpu.InterpretParams(uninitialized_memory="zero"))()
print(out[:, 0])
print(last[:, :3])
