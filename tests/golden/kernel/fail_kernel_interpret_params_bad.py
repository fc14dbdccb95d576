# InterpretParams checks its fields where it is made: an unknown option, or a mode it does not have
from jax.experimental.pallas import tpu as pltpu

print(pltpu.InterpretParams(num_cores_or_threads=2).num_cores_or_threads)  # expect: 2
try:
  pltpu.InterpretParams(num_cores_or_threads=0)
except ValueError as e:
  print(e)  # expect: Number of cores or threads must be at least 1, but got 0.
pltpu.InterpretParams(dma_mode="eager")  # error: TypeError: InterpretParams.__init__() got an unexpected keyword argument 'dma_mode'
