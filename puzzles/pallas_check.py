# The puzzle course's `check` for real JAX: compares a kernel's result with the reference and
# prints PASSED or FAILED with the first mismatch. `pallas-puzzles` has a built-in module of the
# same name and API that also draws a map of the output blocks and explains uninitialised memory;
# this file lets every puzzle run unmodified under `python3` (or in a notebook) with JAX installed.
import jax.numpy as jnp
import numpy as np

# Default tolerances per dtype of the expected value: (atol, rtol).
_TOLERANCES = {
    "float32": (1e-5, 1e-5),
    "float16": (1e-2, 1e-2),
    "bfloat16": (2e-2, 2e-2),
}


def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        out = []
        for item in tree:
            out.extend(_leaves(item))
        return out
    if isinstance(tree, dict):
        out = []
        for key in sorted(tree):
            out.extend(_leaves(tree[key]))
        return out
    return [tree]


def _format_index(index):
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def _compare(actual, expected, atol, rtol, label):
    if actual is None:
        return "the result is None; the cell that computes it is not finished"
    actual = jnp.asarray(actual)
    expected = jnp.asarray(expected)
    if actual.shape != expected.shape:
        return f"{label}shape {tuple(actual.shape)} but the reference has {tuple(expected.shape)}"
    if actual.dtype != expected.dtype:
        return f"{label}dtype {actual.dtype} but the reference has {expected.dtype}"
    default_atol, default_rtol = _TOLERANCES.get(str(expected.dtype), (0.0, 0.0))
    atol = default_atol if atol is None else atol
    rtol = default_rtol if rtol is None else rtol
    a = np.asarray(actual.astype(jnp.float32) if actual.dtype == jnp.bfloat16 else actual)
    e = np.asarray(expected.astype(jnp.float32) if expected.dtype == jnp.bfloat16 else expected)
    a64 = a.astype(np.float64)
    e64 = e.astype(np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(a64 - e64) <= atol + rtol * np.abs(e64))
    bad &= ~(np.isnan(a64) & np.isnan(e64))
    count = int(bad.sum())
    if count == 0:
        return None
    first = np.argwhere(bad)[0] if a.ndim > 0 else ()
    got = a64[tuple(first)]
    want = e64[tuple(first)]
    lines = [
        f"{label}{count} of {a.size} elements differ (atol {atol:g}, rtol {rtol:g})",
        f"  first mismatch at {_format_index(first)}: expected {want:.6g}, got {got:.6g}",
    ]
    nans = int(np.isnan(a64).sum())
    if nans:
        lines.append(
            f"  {nans} elements are NaN (memory read before anything was written to it, or an"
            " overflow such as inf - inf)"
        )
    return "\n".join(lines)


def check(actual, expected, *, atol=None, rtol=None, name=None):
    """Prints PASSED or FAILED for `actual` against `expected`; returns True when they agree.

    Both may be arrays or tuples/lists/dicts of arrays of the same structure. Tolerances default
    by dtype: float32 1e-5, float16 1e-2, bfloat16 2e-2, integers and bool exact.
    """
    title = name or "check"
    actual_leaves = _leaves(actual) if actual is not None else [None]
    expected_leaves = _leaves(expected)
    problems = []
    if len(actual_leaves) != len(expected_leaves):
        problems.append(
            f"the result has {len(actual_leaves)} arrays but the reference has "
            f"{len(expected_leaves)}"
        )
    else:
        for i, (a, e) in enumerate(zip(actual_leaves, expected_leaves)):
            label = f"output {i}: " if len(expected_leaves) > 1 else ""
            problem = _compare(a, e, atol, rtol, label)
            if problem:
                problems.append(problem)
    if not problems:
        shapes = ", ".join(
            f"{tuple(jnp.shape(e))} {jnp.asarray(e).dtype}" for e in expected_leaves
        )
        print(f"PASSED {title}: {shapes}")
        return True
    print(f"FAILED {title}: " + problems[0].lstrip())
    for problem in problems[1:]:
        print(problem)
    return False


def report_work(**outputs):
    """Under pallas-puzzles, prints the grid steps, flops and HBM bytes its emulator measured for
    the pallas_calls that returned each keyword's array, and what the later calls saved against
    the first. Real JAX keeps no such counters, so here it only says so and returns None."""
    if not outputs:
        raise TypeError("report_work() takes keyword arguments, each the output of a pallas_call")
    names = ", ".join(outputs)
    print(f"work of {names}: measured only by pallas-puzzles' emulator (not under real JAX)")
    return None


def check_saves(baseline, result, *, counter="flops", at_least, name=None):
    """Under pallas-puzzles, a check that the pallas_call behind `result` did at least the
    fraction `at_least` less of `counter` (flops, grid_steps, hbm_bytes_read,
    hbm_bytes_written) than the one behind `baseline`. Real JAX keeps no counters: this prints
    that the check was skipped and returns True."""
    if not 0 < at_least <= 1:
        raise ValueError("check_saves() `at_least` is a fraction of the baseline, in (0, 1]")
    title = name or "check_saves"
    print(f"SKIPPED {title}: the {counter} counters exist only in pallas-puzzles' emulator")
    return True


def check_overlap(result, *, at_least, name=None):
    """Under pallas-puzzles, a check that at least the fraction `at_least` of the DMA bytes of
    the pallas_call behind `result` were in flight while the kernel computed. Real JAX keeps no
    such record: this prints that the check was skipped and returns True."""
    if not 0 < at_least <= 1:
        raise ValueError("check_overlap() `at_least` is a fraction of the DMA bytes, in (0, 1]")
    title = name or "check_overlap"
    print(f"SKIPPED {title}: DMA overlap is measured only by pallas-puzzles' emulator")
    return True


_COUNTERS = ("grid_steps", "flops", "mxu_flops", "transcendentals", "hbm_bytes_read",
             "hbm_bytes_written")


def check_counts(result, *, name=None, **expected):
    """Under pallas-puzzles, a check that each counter given (grid_steps, flops, mxu_flops,
    transcendentals, hbm_bytes_read, hbm_bytes_written) of the pallas_call behind `result` equals
    the number given. Real JAX keeps no counters: this prints that the check was skipped and
    returns True."""
    for counter in expected:
        if counter not in _COUNTERS:
            raise TypeError(
                f"check_counts() got an unexpected keyword argument '{counter}' (counters: "
                + ", ".join(_COUNTERS) + ")")
    if not any(v is not None for v in expected.values()):
        raise TypeError("check_counts() needs at least one counter, e.g. flops=2 * M * N * K")
    title = name or "check_counts"
    print(f"SKIPPED {title}: the counters exist only in pallas-puzzles' emulator")
    return True
