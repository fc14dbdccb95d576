# args: --lint
# with --lint, a call's VMEM (double-buffered blocks and scratch) is held against the 16 MiB
# default scoped limit, or against the call's own pltpu.CompilerParams(vmem_limit_bytes=...);
# a limit above the chip's VMEM (128 MiB on the default v5e) warns too
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def double(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


x = jnp.ones((2048, 2048), jnp.float32)
spec = pl.BlockSpec((1024, 2048), lambda i: (i, 0))  # 8 MiB: 32 MiB double-buffered in and out
kw = dict(out_shape=jax.ShapeDtypeStruct((2048, 2048), jnp.float32), grid=(2,), in_specs=[spec],
          out_specs=spec, interpret=True)
MiB = 1024 * 1024
a = pl.pallas_call(double, **kw)(x)  # warning: above the 16.0 MiB scoped budget
b = pl.pallas_call(double, compiler_params=pltpu.CompilerParams(vmem_limit_bytes=48 * MiB), **kw)(x)
c = pl.pallas_call(double, compiler_params=pltpu.CompilerParams(vmem_limit_bytes=24 * MiB), **kw)(x)  # warning: above its vmem_limit_bytes of 24.0 MiB
d = pl.pallas_call(double, compiler_params=pltpu.CompilerParams(vmem_limit_bytes=256 * MiB), **kw)(x)  # warning: more than the 128 MiB of VMEM a TPU v5e TensorCore has
print(a[0, 0], b[0, 0], c[0, 0], d[0, 0])  # expect: 2.0 2.0 2.0 2.0
