# numpy.testing's array assertions: equal, almost equal (decimal places), allclose; each raises AssertionError
import jax.numpy as jnp
import numpy as np

x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
np.testing.assert_array_equal(x, np.arange(6).reshape(2, 3))
np.testing.assert_array_almost_equal(x, x + 1e-7)
np.testing.assert_array_almost_equal(x, x + 4e-4, decimal=3)
np.testing.assert_allclose(x, x * (1 + 1e-8))
print("all passed")  # expect: all passed
for check in (lambda: np.testing.assert_array_equal(x, x + 1),
              lambda: np.testing.assert_array_almost_equal(x, x + 1e-3),
              lambda: np.testing.assert_array_almost_equal(x, x + 2e-3, decimal=3),
              lambda: np.testing.assert_array_equal(x, jnp.zeros((3, 2)))):
  try:
    check()
  except AssertionError as e:
    text = str(e)
    print("raised", "not equal" in text or "not almost equal" in text)
# expect: raised True
# expect: raised True
# expect: raised True
# expect: raised True
