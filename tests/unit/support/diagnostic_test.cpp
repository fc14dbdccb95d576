#include "support/diagnostic.h"

#include <gtest/gtest.h>

namespace pz {
namespace {

TEST(Diagnostic, RendersLocationSourceLineAndUnderline) {
  SourceManager sources;
  FileId id = sources.Add("k.py", "def f():\n    o_ref[...] = x + y\n");
  Diagnostic d;
  d.message = "store of shape (64,) into `o_ref` of shape (32,)";
  d.span = SourceSpan{id, 13, 23};
  d.notes.push_back(Note{"`o_ref` is the block of output 0", std::nullopt});
  EXPECT_EQ(Render(d, sources),
            "k.py:2:5: error: store of shape (64,) into `o_ref` of shape (32,)\n"
            "    2 |     o_ref[...] = x + y\n"
            "      |     ^~~~~~~~~~\n"
            "note: `o_ref` is the block of output 0\n");
}

TEST(Diagnostic, RendersPythonStyleTraceback) {
  SourceManager sources;
  FileId id = sources.Add("t.py", "def f():\n    return 1 / 0\nf()\n");
  Diagnostic d;
  d.message = "ZeroDivisionError: division by zero";
  d.span = SourceSpan{id, 20, 25};
  d.traceback = {{SourceSpan{id, 26, 29}, "<module>"}, {SourceSpan{id, 20, 25}, "f"}};
  std::string text = Render(d, sources);
  EXPECT_EQ(text.substr(0, text.find("t.py:2")),
            "Traceback (most recent call last):\n"
            "  File \"t.py\", line 3, in <module>\n"
            "    f()\n"
            "  File \"t.py\", line 2, in f\n"
            "    return 1 / 0\n");
  EXPECT_NE(text.find("t.py:2:12: error: ZeroDivisionError: division by zero"), std::string::npos);
}

TEST(Diagnostic, UsesColourOnlyWhenAsked) {
  SourceManager sources;
  FileId id = sources.Add("c.py", "x\n");
  Diagnostic d{.message = "boom", .span = SourceSpan{id, 0, 1}};
  EXPECT_EQ(Render(d, sources).find('\x1b'), std::string::npos);
  EXPECT_NE(Render(d, sources, RenderOptions{.color = true}).find('\x1b'), std::string::npos);
}

TEST(DiagnosticSink, CountsOnlyErrors) {
  DiagnosticSink sink;
  sink.Report(Diagnostic{.severity = Severity::kWarning, .message = "w"});
  EXPECT_FALSE(sink.HasErrors());
  sink.Report(Diagnostic{.message = "e"});
  EXPECT_EQ(sink.ErrorCount(), 1);
}

}  // namespace
}  // namespace pz
