// Line tables and span arithmetic for SourceFile / SourceManager.
#include "support/source.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace pz {

SourceSpan SourceSpan::Cover(SourceSpan a, SourceSpan b) {
  if (!a.valid()) return b;
  if (!b.valid() || !(a.file == b.file)) return a;
  return SourceSpan{a.file, std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      line_starts_.push_back(i + 1);
    } else if (text_[i] == '\r' && (i + 1 >= text_.size() || text_[i + 1] != '\n')) {
      line_starts_.push_back(i + 1);
    }
  }
}

LineCol SourceFile::Locate(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  int line = static_cast<int>(it - line_starts_.begin());
  uint32_t start = line_starts_[line - 1];
  int col = 1;
  for (uint32_t i = start; i < offset; ++i) {
    // Count code points: skip UTF-8 continuation bytes.
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++col;
  }
  return LineCol{line, col};
}

std::string_view SourceFile::Line(int line) const {
  if (line < 1 || line > line_count()) return {};
  uint32_t start = line_starts_[line - 1];
  uint32_t end = line < line_count() ? line_starts_[line] : static_cast<uint32_t>(text_.size());
  while (end > start && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return std::string_view(text_).substr(start, end - start);
}

FileId SourceManager::Add(std::string path, std::string text) {
  files_.push_back(std::make_unique<SourceFile>(std::move(path), std::move(text)));
  return FileId{static_cast<uint32_t>(files_.size() - 1)};
}

std::optional<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return buffer.str();
}

std::optional<FileId> SourceManager::Load(const std::string& path) {
  std::optional<std::string> text = ReadFile(path);
  if (!text) return std::nullopt;
  return Add(path, std::move(*text));
}

std::string_view SourceManager::Text(SourceSpan span) const {
  if (!span.valid()) return {};
  const std::string& text = Get(span.file).text();
  uint32_t begin = std::min<uint32_t>(span.begin, static_cast<uint32_t>(text.size()));
  uint32_t end = std::min<uint32_t>(std::max(span.end, begin), static_cast<uint32_t>(text.size()));
  return std::string_view(text).substr(begin, end - begin);
}

}  // namespace pz
