# `pallas_check.report_work` reports what the emulator counted for each call: a kernel that skips
# half its grid steps with pl.when spends no flops there, and a half-size grid reads half the
# bytes; the flops are counted per executed op (32 scalar ops on program ids, 4 blocks of 8
# multiplies in the dense run). (An engine-only helper: real JAX has no counters; its twin prints a note.)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import report_work


def double_even_blocks(x_ref, o_ref):
    @pl.when(pl.program_id(0) % 2 == 0)
    def _():
        o_ref[...] = x_ref[...] * 2.0

    @pl.when(pl.program_id(0) % 2 == 1)
    def _():
        o_ref[...] = x_ref[...]


def call(grid, index_map):
    spec = pl.BlockSpec((8,), index_map)
    out_shape = jax.ShapeDtypeStruct((8 * grid[0],), jnp.float32)
    return pl.pallas_call(double_even_blocks, out_shape=out_shape,
                          grid=grid, in_specs=[spec], out_specs=pl.BlockSpec((8,), lambda i: (i,)),
                          interpret=True)


x = jnp.arange(64.0)
dense = call((8,), lambda i: (i,))(x)
half = call((4,), lambda i: (2 * i,))(x)
work = report_work(dense=dense, half=half)
# expect: work measured by the emulator:
# expect:   call   grid steps       flops     HBM read  HBM written
# expect:   dense           8          64        256 B        256 B
# expect:   half            4          32        128 B        128 B
# expect:   half against dense: 4 fewer grid steps (50%), 32 fewer flops (50%), 128 fewer bytes (50%) read from HBM
print(work["half"]["grid_steps"], work["dense"]["hbm_bytes_read"])  # expect: 4 256
print(work["half"]["flops"] < work["dense"]["flops"])  # expect: True

try:
    report_work(dense)
except TypeError as e:
    print(e)  # expect: report_work() takes keyword arguments only, each the output of a pallas_call: report_work(dense=out_a, sparse=out_b)
try:
    report_work(x=x)
except ValueError as e:
    print(e)  # expect: report_work(): `x` is not the output of a pallas_call (pass the array the call returned, before any other operation)

# check_saves: a check on the counters, recorded like `check` (a failing one is in
# tests/unit/cli/course_cli_test.cpp: goldens must pass).
from pallas_check import check_saves

# A call's record lives with the array it returned: 40 calls later, `dense` and `half` still
# name theirs.
for _ in range(40):
    call((8,), lambda i: (i,))(x)

check_saves(dense, half, at_least=0.5, name="half the flops")  # expect: PASSED half the flops: 32 flops against 64 for the baseline, 50% saved (at least 50% expected)
check_saves(dense, half, counter="hbm_bytes_read", at_least=0.5, name="bytes")  # expect: PASSED bytes: 128 hbm_bytes_read against 256 for the baseline, 50% saved (at least 50% expected)
try:
    check_saves(dense, half, counter="bytes", at_least=0.5)
except ValueError as e:
    print(e)  # expect: check_saves(): unknown counter 'bytes' (grid_steps, flops, mxu_flops, transcendentals, hbm_bytes_read, hbm_bytes_written)
