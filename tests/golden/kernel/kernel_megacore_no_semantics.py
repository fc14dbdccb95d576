# args: --cores 2
# megacore without dimension_semantics: every axis is "arbitrary", so nothing is split and the
# reduction over k stays on one core (the same kernel marked "parallel" races)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def rowsum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


x = jnp.arange(6 * 32, dtype=jnp.float32).reshape(6, 32)
out = pl.pallas_call(
    rowsum_kernel,
    out_shape=jax.ShapeDtypeStruct((6, 8), jnp.float32),
    grid=(3, 4),
    in_specs=[pl.BlockSpec((2, 8), lambda i, k: (i, k))],
    out_specs=pl.BlockSpec((2, 8), lambda i, k: (i, 0)),
    interpret=True,
)(x)
print(out)
# expect: [[ 48.  52.  56.  60.  64.  68.  72.  76.]
# expect:  [176. 180. 184. 188. 192. 196. 200. 204.]
# expect:  [304. 308. 312. 316. 320. 324. 328. 332.]
# expect:  [432. 436. 440. 444. 448. 452. 456. 460.]
# expect:  [560. 564. 568. 572. 576. 580. 584. 588.]
# expect:  [688. 692. 696. 700. 704. 708. 712. 716.]]
