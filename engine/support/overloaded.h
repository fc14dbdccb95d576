// The visitor of std::visit built from lambdas: `std::visit(Overloaded{[](int) {...}, ...}, v)`.
#pragma once

namespace pz {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace pz
