# A typo in a module name stops the program where the import runs.
import math

print(math.sqrt(9))  # expect: 3.0
import numpyy as np  # error: No module named
x = np.zeros(3)
