#include "support/source.h"

#include <gtest/gtest.h>

namespace pz {
namespace {

TEST(SourceFile, LocatesLinesAndColumns) {
  SourceFile file("a.py", "x = 1\ny = 2\n\nz");
  EXPECT_EQ(file.line_count(), 4);
  EXPECT_EQ(file.Locate(0).line, 1);
  EXPECT_EQ(file.Locate(0).col, 1);
  EXPECT_EQ(file.Locate(6).line, 2);
  EXPECT_EQ(file.Locate(10).col, 5);
  EXPECT_EQ(file.Locate(13).line, 4);
  EXPECT_EQ(file.Line(2), "y = 2");
  EXPECT_EQ(file.Line(3), "");
  EXPECT_EQ(file.Line(4), "z");
}

TEST(SourceFile, ColumnsCountCodePointsNotBytes) {
  SourceFile file("a.py", "s = \"é\" + x");
  // "é" is two bytes; `x` is the 12th character.
  EXPECT_EQ(file.Locate(12).col, 12);
}

TEST(SourceFile, HandlesCrlfLineEndings) {
  SourceFile file("a.py", "a\r\nb\r\n");
  EXPECT_EQ(file.Line(1), "a");
  EXPECT_EQ(file.Locate(3).line, 2);
}

TEST(SourceSpan, CoverJoinsSpansOfOneFile) {
  SourceSpan a{FileId{0}, 4, 6};
  SourceSpan b{FileId{0}, 1, 3};
  SourceSpan c = SourceSpan::Cover(a, b);
  EXPECT_EQ(c.begin, 1u);
  EXPECT_EQ(c.end, 6u);
  EXPECT_EQ(SourceSpan::Cover(SourceSpan{}, a), a);
}

TEST(SourceManager, ReportsUnreadableFiles) {
  SourceManager sources;
  EXPECT_FALSE(sources.Load("/nonexistent/definitely/missing.py").has_value());
  FileId id = sources.Add("m.py", "abc");
  EXPECT_EQ(sources.Text(SourceSpan{id, 1, 3}), "bc");
}

}  // namespace
}  // namespace pz
