#include "course/check_report.h"

#include <fmt/format.h>

namespace pz::course {

std::string_view StatusWord(CheckReport::Status status) {
  switch (status) {
    case CheckReport::Status::kPassed:
      return "PASSED";
    case CheckReport::Status::kFailed:
      return "FAILED";
    case CheckReport::Status::kSkipped:
      return "SKIPPED";
  }
  return "?";
}

std::string RenderCheck(const CheckReport& report, bool color) {
  std::string word(StatusWord(report.status));
  if (color) {
    const char* code = report.status == CheckReport::Status::kPassed   ? "\033[32m"
                       : report.status == CheckReport::Status::kFailed ? "\033[31m"
                                                                       : "\033[33m";
    word = code + word + "\033[0m";
  }
  std::string text = fmt::format("{} {}: {}\n", word, report.name, report.summary);
  for (const std::string& line : report.lines) text += line + "\n";
  return text;
}

}  // namespace pz::course
