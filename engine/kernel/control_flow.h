// Control flow usable in kernels and host code (see control_flow.cpp), for the module installer.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "eval/interpreter.h"
#include "eval/value.h"
#include "kernel/ir.h"

namespace pz::kernel {

class Trace;
// The trace in progress, or nullptr in host code.
Trace* CurrentTrace(eval::Interpreter& interp);

eval::Value ForiLoop(eval::Interpreter& interp, const eval::Value& lower, const eval::Value& upper,
                     const eval::Value& body, const eval::Value& init, int64_t unroll);
eval::Value WhileLoop(eval::Interpreter& interp, const eval::Value& cond, const eval::Value& body,
                      const eval::Value& init);
eval::Value Cond(eval::Interpreter& interp, const eval::Value& pred, const eval::Value& true_fun,
                 const eval::Value& false_fun, const std::vector<eval::Value>& operands);
eval::Value Switch(eval::Interpreter& interp, const eval::Value& index,
                   const std::vector<eval::Value>& branches,
                   const std::vector<eval::Value>& operands);
// pl.when(condition)(body): runs or traces `body` (no arguments).
void When(eval::Interpreter& interp, const eval::Value& condition, const eval::Value& body);
// jax.debug.print / pl.debug_print: prints now (host code) or at every run of the kernel.
void DebugPrint(eval::Interpreter& interp, const std::string& format,
                const std::vector<eval::Value>& args,
                const std::vector<std::pair<std::string, eval::Value>>& kwargs);
// Runs a traced print (a DebugPrint instruction) with its operands' values, as every backend
// does: an error its formatting raises belongs to the print's line. The caller holds the
// interpreter where several threads share it.
void RunPrint(const Instr& print, const std::vector<array::Array>& values);

}  // namespace pz::kernel
