// JAX's TPU interpret mode switches as the emulator reads them: `pltpu.InterpretParams(...)`,
// `pltpu.set_tpu_interpret_mode`, `pltpu.force_tpu_interpret_mode` (a context manager) and
// `pallas_call(..., interpret=params)`. Our default `tpu` semantics already is what JAX's TPU
// interpret mode models, so these switches do not change the mode: they map the params' options
// onto EmulatorOptions for the calls they cover.
#pragma once

#include <string>

#include "eval/interpreter.h"
#include "eval/value.h"
#include "tpu/options.h"

namespace pz::tpu {

struct EmulatorSession;

// Adds InterpretParams, set_tpu_interpret_mode, force_tpu_interpret_mode and
// reset_tpu_interpret_mode_state to `pltpu`; the mode they set lives in `session`.
void InstallInterpretMode(eval::Interpreter& interp, EmulatorSession& session);

// The options one pallas_call runs with: `base` with the params of the interpret mode in force
// (the context manager's or set_tpu_interpret_mode's, which win over the call's own, as in JAX),
// else the call's `interpret=` argument when it is an InterpretParams. Raises ValueError for a
// setting the emulator cannot model (more than two cores).
EmulatorOptions OptionsForCall(eval::Interpreter& interp, const EmulatorSession& session,
                               const eval::Value& call_interpret, const EmulatorOptions& base);

}  // namespace pz::tpu
