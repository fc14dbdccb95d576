// A directory of one test's own for the files it writes, removed with everything in it when the
// object goes out of scope. Its name carries the process id, a counter and the test's name, so
// tests running in parallel processes (ctest -j, a release and an ASan run at once) never meet.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace pz::testing {

class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    std::string name = "pz_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
      name += std::string("_") + info->test_suite_name() + "_" + info->name();
    }
    for (char& c : name) {
      if (c == '/') c = '_';  // parameterised test names
    }
    path_ = std::filesystem::path(::testing::TempDir()) / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

#ifdef PZ_TEST_COURSE
// A copy of the test course (tests/course/testcourse, with the project's puzzles/pallas_check.py)
// in `scratch`, for tests that change or add files; its root.
inline std::filesystem::path CopyTestCourse(const ScratchDir& scratch) {
  std::filesystem::path root = scratch / "course";
  std::filesystem::copy(PZ_TEST_COURSE, root, std::filesystem::copy_options::recursive);
  std::filesystem::copy_file(std::filesystem::path(PZ_SOURCE_DIR) / "puzzles" / "pallas_check.py",
                             root / "puzzles" / "pallas_check.py");
  return root;
}
#endif

}  // namespace pz::testing
