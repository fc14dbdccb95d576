# one DMA from an HBM (pl.ANY) window at a traced offset into VMEM scratch, waited, then used
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    i = pl.program_id(0)
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(i * 8, 8)], buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...] * 2.0


x = jnp.arange(128, dtype=jnp.float32).reshape(16, 8)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((16, 8), jnp.float32),
    grid=(2,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec((8, 8), lambda i: (i, 0)),
    scratch_shapes=[pltpu.VMEM((8, 8), jnp.float32), pltpu.SemaphoreType.DMA],
    interpret=True,
)(x)
print(out[0])
print(out[15])
# expect: [ 0.  2.  4.  6.  8. 10. 12. 14.]
# expect: [240. 242. 244. 246. 248. 250. 252. 254.]
