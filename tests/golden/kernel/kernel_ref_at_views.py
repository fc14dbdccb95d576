# ref.at[...] makes a view (no data moves); views compose and can be passed to helpers
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_into(src_ref, dst_ref, amount):
    dst_ref[...] = src_ref[...] + amount


def view_kernel(x_ref, o_ref):
    top = x_ref.at[0]
    bottom = x_ref.at[1:3]
    add_into(top, o_ref.at[2], 100.0)
    add_into(bottom, o_ref.at[0:2], 0.5)
    inner = x_ref.at[1:3].at[1, pl.ds(1, 2)]
    o_ref.at[2][pl.ds(0, 2)] = inner[...]
    print("view shapes", top.shape, bottom.shape, inner.shape)


x = jnp.arange(12).reshape(3, 4).astype(jnp.float32)
out = pl.pallas_call(view_kernel, out_shape=jax.ShapeDtypeStruct((3, 4), jnp.float32),
                     interpret=True)(x)
print(out)
# expect: view shapes (4,) (2, 4) (2,)
# expect: [[  4.5   5.5   6.5   7.5]
# expect:  [  8.5   9.5  10.5  11.5]
# expect:  [  9.   10.  102.  103. ]]
