# numpy float32 arithmetic, reductions and printing
import numpy as np

a = np.linspace(0, 1, 5, dtype=np.float32)
print(a, a.dtype)  # expect: [0.   0.25 0.5  0.75 1.  ] float32
print(a * 2 + 1, (a * 2).dtype)  # expect: [1.  1.5 2.  2.5 3. ] float32
print(a.sum(), a.max(), a.mean())  # expect: 2.5 1.0 0.5
b = a.reshape(5, 1) * a
print(b.shape, b[4])  # expect: (5, 5) [0.   0.25 0.5  0.75 1.  ]
print(np.exp(a).dtype, np.where(a > 0.5, a, np.float32(0)))
# expect: float32 [0.   0.   0.   0.75 1.  ]
