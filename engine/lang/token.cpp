// Token spellings and keyword lookup, both generated from the PZ_TOKENS table in token.h. The
// lexer calls KeywordOrName for every identifier; error messages call Spelling.
#include "lang/token.h"

#include <algorithm>
#include <array>
#include <utility>

#include "support/check.h"

namespace pz::lang {
namespace {

using Entry = std::pair<std::string_view, TokenKind>;

// Every (spelling, kind) pair, in PZ_TOKENS order.
constexpr Entry kAllTokens[] = {
#define PZ_TOKEN_ENTRY(name, spelling) {spelling, TokenKind::name},
    PZ_TOKENS(PZ_TOKEN_ENTRY)
#undef PZ_TOKEN_ENTRY
};

// The keywords are the contiguous run kFalse..kYield of PZ_TOKENS; sorted for binary search.
constexpr size_t kFirstKeyword = static_cast<size_t>(TokenKind::kFalse);
constexpr size_t kKeywordCount = static_cast<size_t>(TokenKind::kYield) - kFirstKeyword + 1;
constexpr auto kKeywords = [] {
  std::array<Entry, kKeywordCount> keywords{};
  for (size_t i = 0; i < kKeywordCount; ++i) keywords[i] = kAllTokens[kFirstKeyword + i];
  std::sort(keywords.begin(), keywords.end());
  return keywords;
}();
// The longest keyword: longer words skip the search (most identifiers are not keywords).
constexpr size_t kMaxKeywordLength =
    std::max_element(kKeywords.begin(), kKeywords.end(), [](const Entry& a, const Entry& b) {
      return a.first.size() < b.first.size();
    })->first.size();

}  // namespace

std::string_view Spelling(TokenKind kind) {
  switch (kind) {
#define PZ_TOKEN_CASE(name, spelling) \
  case TokenKind::name:               \
    return spelling;
    PZ_TOKENS(PZ_TOKEN_CASE)
#undef PZ_TOKEN_CASE
  }
  PZ_UNREACHABLE();
}

TokenKind KeywordOrName(std::string_view word) {
  if (word.size() > kMaxKeywordLength) return TokenKind::kName;
  auto it =
      std::lower_bound(kKeywords.begin(), kKeywords.end(), word,
                       [](const Entry& entry, std::string_view w) { return entry.first < w; });
  if (it != kKeywords.end() && it->first == word) return it->second;
  return TokenKind::kName;
}

}  // namespace pz::lang
