// Source files and byte-offset spans. Every token, AST node, IR instruction and diagnostic
// points back into a SourceFile through a SourceSpan; line/column are computed only when a
// diagnostic is rendered.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pz {

// Index of a file in a SourceManager. kInvalid marks spans of engine-made nodes.
struct FileId {
  static constexpr uint32_t kInvalid = UINT32_MAX;
  uint32_t value = kInvalid;
  bool valid() const { return value != kInvalid; }
  friend bool operator==(FileId, FileId) = default;
};

// Half-open byte range [begin, end) in one file.
struct SourceSpan {
  FileId file;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return file.valid(); }
  // The smallest span covering both (they must be in the same file; an invalid side is ignored).
  static SourceSpan Cover(SourceSpan a, SourceSpan b);
  friend bool operator==(const SourceSpan&, const SourceSpan&) = default;
};

// 1-based line and column; the column counts UTF-8 code points, as editors do.
struct LineCol {
  int line = 0;
  int col = 0;
};

class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  int line_count() const { return static_cast<int>(line_starts_.size()); }

  LineCol Locate(uint32_t offset) const;
  // The text of 1-based `line` without its line terminator.
  std::string_view Line(int line) const;
  // Byte offset where 1-based `line` starts.
  uint32_t LineStart(int line) const { return line_starts_[line - 1]; }

 private:
  std::string path_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
};

// The whole file as bytes; nullopt when it cannot be read.
std::optional<std::string> ReadFile(const std::filesystem::path& path);

// Owns every source file of a session; FileIds index into it. Files are never removed, so
// references returned by Get stay valid for the manager's lifetime.
class SourceManager {
 public:
  FileId Add(std::string path, std::string text);
  // Reads a file from disk; nullopt when it cannot be read.
  std::optional<FileId> Load(const std::string& path);
  const SourceFile& Get(FileId id) const { return *files_[id.value]; }
  // Text covered by a span (empty for an invalid span).
  std::string_view Text(SourceSpan span) const;

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
};

}  // namespace pz
