// What `diagram` shares with the REPL: a parsed request and the action that draws it (see
// diagram_command.cpp), and the terminal rendering of one grid step.
#pragma once

#include <string>
#include <vector>

#include "cli/course_context.h"
#include "tpu/pallas_call.h"

namespace pz::cli {

struct DiagramRequest {
  enum class Source { kSolution, kWorkspace };
  std::string puzzle;  // a puzzle name; empty: the current puzzle
  std::string file;    // --file: draw this file instead of a puzzle's
  std::string svg;     // --svg: write SVG here instead of drawing in the terminal
  Source source = Source::kSolution;
  int call = 1;                // --call: which pallas_call of the run, 1-based
  std::string step;            // --step: program ids, "1,0"
  bool all_steps = false;      // --all-steps: small multiples
  bool walk = false;           // --walk: one step per Enter
  std::string color = "auto";  // --color=auto|always|never
  // The REPL draws a solution only once the learner solved the puzzle or saw its solution.
  bool gate_solution = false;
};

// Parses `args` (options of `diagram`) on top of `request` and draws it; returns an exit code.
int DiagramWithArgs(CourseContext& ctx, const std::vector<std::string>& args,
                    DiagramRequest request);
int DrawDiagram(CourseContext& ctx, const DiagramRequest& request);

// One grid step of `call` as terminal text (Unicode blocks; ANSI colour when `color`).
std::string RenderStepText(const tpu::CallRecord& call, int64_t step, bool color);
std::string LegendText(bool color);

}  // namespace pz::cli
