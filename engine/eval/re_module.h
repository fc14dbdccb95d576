// Private to the `re` module (re_module.cpp: the module and Pattern objects; re_match.cpp: Match
// objects, sub(), split() and findall()): the objects that wrap the regex engine (re_engine.h)
// for the interpreter. Positions are code points, as str indexing counts them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eval/interpreter.h"
#include "eval/re_engine.h"

namespace pz::eval {

// A str argument decoded to code points once per call and shared by the matches made from it.
struct RegexSubject {
  Value value;  // the str
  std::shared_ptr<const std::u32string> text;
};
// The subject of a match: TypeError "expected string or bytes-like object, got 'int'" otherwise.
RegexSubject ToSubject(Interpreter& interp, const Value& string);

// A compiled pattern (`re.compile(...)`).
class PatternObject final : public Object {
 public:
  PatternObject(std::string pattern, std::shared_ptr<const re::Program> program)
      : Object(ObjectKind::kExtension), pattern(std::move(pattern)), program(std::move(program)) {}
  std::string_view type_name() const override { return "re.Pattern"; }
  std::string Repr(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool reflected) override;
  std::optional<size_t> Hash(Interpreter& interp) override;

  const std::string pattern;
  const std::shared_ptr<const re::Program> program;
};

// A successful match.
class MatchObject final : public Object {
 public:
  MatchObject(Value pattern, RegexSubject subject, re::MatchSpans spans, int64_t pos,
              int64_t endpos)
      : Object(ObjectKind::kExtension),
        pattern(std::move(pattern)),
        subject(std::move(subject)),
        spans(std::move(spans)),
        pos(pos),
        endpos(endpos) {}
  std::string_view type_name() const override { return "re.Match"; }
  std::string Repr(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override;
  void ClearReferences() override { pattern = Value(); }

  const re::Program& program() const { return *pattern.as<PatternObject>()->program; }
  // The group's text as a str, or `missing` when it did not take part.
  Value Group(int group, const Value& missing = Value()) const;
  // The group number of an int or a group name; IndexError "no such group" otherwise.
  int GroupIndex(Interpreter& interp, const Value& key) const;

  Value pattern;  // the PatternObject
  RegexSubject subject;
  re::MatchSpans spans;
  int64_t pos, endpos;
};

// One search of `pattern` (a PatternObject) over subject[pos:endpos] (bounds already clamped);
// raises RuntimeError when a catastrophically backtracking pattern runs too long.
std::shared_ptr<MatchObject> RegexSearch(Interpreter& interp, const Value& pattern,
                                         const RegexSubject& subject, int64_t pos, int64_t endpos,
                                         bool anchored, bool full, bool must_advance);
// Each successive match, as finditer() finds them (an empty match may not follow where the last
// one ended). `fn` returns false to stop.
void ForEachMatch(Interpreter& interp, const Value& pattern, const RegexSubject& subject,
                  int64_t pos, int64_t endpos,
                  const std::function<bool(const std::shared_ptr<MatchObject>&)>& fn);
// Raises re.error for a bad pattern or template.
[[noreturn]] void RaisePatternError(Interpreter& interp, const re::PatternError& error,
                                    const std::string& pattern);

// re.sub / re.subn, re.split and re.findall on a compiled pattern (re_match.cpp).
Value RegexSub(Interpreter& interp, const Value& pattern, const Value& repl, const Value& string,
               int64_t count, bool with_count);
Value RegexSplit(Interpreter& interp, const Value& pattern, const Value& string, int64_t maxsplit);
Value RegexFindAll(Interpreter& interp, const Value& pattern, const Value& string, int64_t pos,
                   int64_t endpos);

}  // namespace pz::eval
