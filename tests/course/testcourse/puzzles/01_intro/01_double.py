# %% [markdown]
# # Double a vector
#
# Each element of the output is twice the input.
# ![blocks](../../images/test_blocks.svg)

# %%
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check


# %%
def double_kernel(x_ref, o_ref):
    # YOUR CODE BEGIN
    pass
    # YOUR CODE END


x = jnp.arange(16, dtype=jnp.float32)
actual = pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                        interpret=True)(x)
check(actual, x * 2.0, name="double")
