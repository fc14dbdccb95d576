# a dict out_shape: the kernel gets one dict of output refs, the call returns a dict (sorted keys)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def stats_kernel(x_ref, outs):
    outs["twice"][...] = x_ref[...] * 2.0
    outs["plus"][...] = x_ref[...] + 100.0


x = jnp.arange(8).astype(jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
shape = jax.ShapeDtypeStruct((8,), jnp.float32)
res = pl.pallas_call(stats_kernel, out_shape={"twice": shape, "plus": shape}, grid=(2,),
                     in_specs=[spec], out_specs={"twice": spec, "plus": spec},
                     interpret=True)(x)
print(type(res).__name__, list(res))  # expect: dict ['plus', 'twice']
print(res["twice"])  # expect: [ 0.  2.  4.  6.  8. 10. 12. 14.]
print(res["plus"])  # expect: [100. 101. 102. 103. 104. 105. 106. 107.]
