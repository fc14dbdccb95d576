// `verify`, the course's CI gate: for every puzzle, the solution passes; the starter fails (or
// does not compile) with the intended message; starter and solution agree outside the editable
// regions; at least two hint levels exist; every referenced image exists and the manifest lists
// exactly those; and the manifest and the files on disk agree.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "course/manifest.h"
#include "course/runner.h"

namespace pz::course {

struct VerifyItem {
  std::string name;  // "solution", "starter", "regions", "hints", "images", "timeline"
  bool ok = false;
  std::string detail;  // why not (or a short fact when ok)
};

struct VerifyRow {
  std::string puzzle;  // full name
  std::vector<VerifyItem> items;
  bool ok() const;
};

struct VerifyReport {
  std::vector<std::string> course_problems;  // manifest and stray-file problems
  std::vector<VerifyRow> rows;
  int passed() const;
  int failed() const;  // failed rows, plus one when there are course problems
};

struct VerifyOptions {
  RunOptions run;
  // Only puzzles whose full name starts with this (all when empty).
  std::string only;
  // Called after each puzzle (in the course's order), for progress output.
  std::function<void(const VerifyRow&)> on_row;
  // Puzzles verified at once, each in a process of its own (forked; 1: one after another in
  // this process). A puzzle whose process dies gets a failed row saying how.
  int jobs = 1;
};

VerifyReport Verify(const CourseLoad& load, const VerifyOptions& options);

}  // namespace pz::course
