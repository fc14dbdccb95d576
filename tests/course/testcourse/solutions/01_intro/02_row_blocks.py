# %% [markdown]
# # Row blocks
#
# A grid of two steps, each copying one block of rows.

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check


# %%
def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jax.random.normal(jax.random.key(1), (16, 128))
actual = pl.pallas_call(
    copy_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    grid=(2,),
    # YOUR CODE BEGIN
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    # YOUR CODE END
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    interpret=True,
)(x)
check(actual, x, name="copy")
