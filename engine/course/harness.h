// The course's `check` as a built-in module `pallas_check` (twin of puzzles/pallas_check.py,
// which runs under real JAX): `check(actual, expected, *, atol=None, rtol=None, name=None)`
// prints PASSED or FAILED with an explanation (see compare.h) and records the outcome, so the
// course runner knows whether a puzzle passed. `report_work(**outputs)` prints what the emulator
// measured (grid steps, flops, HBM bytes) for the pallas_calls that returned each keyword's array,
// and what the later ones saved against the first; it returns the numbers as a dict of dicts.
#pragma once

#include <string>
#include <vector>

#include "course/check_report.h"
#include "eval/interpreter.h"
#include "support/source.h"

namespace pz::course {

class EagerRecord;

struct HarnessState {
  std::vector<CheckReport> checks;  // in call order
  bool color = false;               // check lines printed with coloured status words
  // The block maps failed checks have drawn (the output's name and the map's lines), and the
  // check that drew each: a later check with the same wrong blocks names it instead.
  std::vector<std::pair<std::string, std::string>> maps_shown;
  // Where a divergence search records the run: each check's compared outputs go into it.
  EagerRecord* eager = nullptr;
};

// Registers `pallas_check` in `interp` (after tpu::InstallPallas, whose output records it
// reads); its state lives as long as the interpreter.
HarnessState& InstallHarness(eval::Interpreter& interp);
// The state InstallHarness attached to `interp` (nullptr without it).
HarnessState* HarnessOf(eval::Interpreter& interp);

}  // namespace pz::course
