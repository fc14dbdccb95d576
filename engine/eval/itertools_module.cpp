// The `itertools` module: every function returns a lazy iterator (an IteratorObject whose
// callback pulls from its inputs on demand), so the infinite ones (count, cycle, repeat) are
// safe under zip() and islice(); the combinatoric ones read their inputs once, as CPython does,
// and step index arrays. Each is a class, as in CPython (`itertools.chain.from_iterable`);
// loops that skip items count steps so a runaway search hits the step limit.
#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "eval/builtin_support.h"

namespace pz::eval {
namespace {

using lang::BinOpKind;
using Next = IteratorObject::NextFn;

Value Lazy(Interpreter& interp, const char* name, Next next) {
  return NewIterator(interp, std::string("itertools.") + name, std::move(next));
}

// ---- Infinite iterators -----------------------------------------------------------------------

Value Count(Interpreter& interp, TypeObject&, CallArgs& args) {
  auto bound = BindArgs(interp, "count", args, {"start=", "step="});
  Value start = bound[0].value_or(Value::Int(0)), step = bound[1].value_or(Value::Int(1));
  if (!start.is_number() || !step.is_number()) {
    interp.Raise(interp.types().type_error, "a number is required");
  }
  auto current = std::make_shared<Value>(start);
  return Lazy(interp, "count", [current, step](Interpreter& in) -> std::optional<Value> {
    Value value = *current;
    *current = in.BinaryOp(BinOpKind::kAdd, value, step);
    return value;
  });
}

Value Cycle(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "cycle", args, 1, 1);
  struct State {
    ObjectRef source;
    std::vector<Value> saved;
    size_t index = 0;
  };
  auto state = std::make_shared<State>(State{interp.GetIter(args.positional[0])});
  return Lazy(interp, "cycle", [state](Interpreter& in) -> std::optional<Value> {
    if (state->source) {
      if (std::optional<Value> item = in.Next(state->source)) {
        state->saved.push_back(*item);
        return item;
      }
      state->source = nullptr;
    }
    if (state->saved.empty()) return std::nullopt;
    Value item = state->saved[state->index];
    state->index = (state->index + 1) % state->saved.size();
    return item;
  });
}

Value Repeat(Interpreter& interp, TypeObject&, CallArgs& args) {
  auto bound = BindArgs(interp, "repeat", args, {"object", "times="});
  Value object = *bound[0];
  auto left = std::make_shared<int64_t>(-1);  // -1: forever
  if (bound[1]) *left = std::max<int64_t>(ToIndex(interp, *bound[1]), 0);
  return Lazy(interp, "repeat", [object, left](Interpreter&) -> std::optional<Value> {
    if (*left == 0) return std::nullopt;
    if (*left > 0) --*left;
    return object;
  });
}

// ---- Iterators over their inputs --------------------------------------------------------------

Value Accumulate(Interpreter& interp, TypeObject&, CallArgs& args) {
  auto bound = BindArgs(interp, "accumulate", args, {"iterable", "func=", "*", "initial="});
  ObjectRef source = interp.GetIter(*bound[0]);
  Value func = bound[1].value_or(Value());
  struct State {
    std::optional<Value> total;
    std::optional<Value> initial;
  };
  auto state = std::make_shared<State>();
  if (bound[2] && !bound[2]->is_none()) state->initial = *bound[2];
  return Lazy(interp, "accumulate", [source, func, state](Interpreter& in) -> std::optional<Value> {
    if (state->initial) {
      state->total = std::exchange(state->initial, std::nullopt);
      return state->total;
    }
    std::optional<Value> item = in.Next(source);
    if (!item) return std::nullopt;
    if (!state->total) {
      state->total = item;
    } else if (func.is_none()) {
      state->total = in.BinaryOp(BinOpKind::kAdd, *state->total, *item);
    } else {
      state->total = in.Call(func, std::vector<Value>{*state->total, *item});
    }
    return state->total;
  });
}

// chain(*iterables) and chain.from_iterable(iterables): the iterables one after another.
Value ChainOf(Interpreter& interp, ObjectRef sources) {
  auto current = std::make_shared<ObjectRef>();
  return Lazy(interp, "chain", [sources, current](Interpreter& in) -> std::optional<Value> {
    for (;;) {
      if (!*current) {
        std::optional<Value> next = in.Next(sources);
        if (!next) return std::nullopt;
        *current = in.GetIter(*next);
      }
      if (std::optional<Value> item = in.Next(*current)) return item;
      *current = nullptr;
      in.Step();
    }
  });
}

Value Compress(Interpreter& interp, TypeObject&, CallArgs& args) {
  auto bound = BindArgs(interp, "compress", args, {"data", "selectors"});
  ObjectRef data = interp.GetIter(*bound[0]), selectors = interp.GetIter(*bound[1]);
  return Lazy(interp, "compress", [data, selectors](Interpreter& in) -> std::optional<Value> {
    for (;;) {
      std::optional<Value> item = in.Next(data);
      std::optional<Value> selector = item ? in.Next(selectors) : std::nullopt;
      if (!item || !selector) return std::nullopt;
      if (in.Truthy(*selector)) return item;
      in.Step();
    }
  });
}

// dropwhile, takewhile and filterfalse: `predicate` decides per item.
enum class Filter { kDropWhile, kTakeWhile, kFilterFalse };

template <Filter kind>
Value PredicateFilter(Interpreter& interp, TypeObject&, CallArgs& args) {
  const char* name = kind == Filter::kDropWhile   ? "dropwhile"
                     : kind == Filter::kTakeWhile ? "takewhile"
                                                  : "filterfalse";
  CheckArgCount(interp, name, args, 2, 2);
  Value predicate = args.positional[0];
  ObjectRef source = interp.GetIter(args.positional[1]);
  auto switched = std::make_shared<bool>(false);  // stopped dropping, or stopped taking
  return Lazy(interp, name, [predicate, source, switched](Interpreter& in) -> std::optional<Value> {
    if (kind == Filter::kTakeWhile && *switched) return std::nullopt;
    while (std::optional<Value> item = in.Next(source)) {
      if (kind == Filter::kDropWhile && *switched) return item;
      bool test = predicate.is_none() ? in.Truthy(*item)
                                      : in.Truthy(in.Call(predicate, std::vector<Value>{*item}));
      if (kind == Filter::kTakeWhile) {
        if (test) return item;
        *switched = true;
        return std::nullopt;
      }
      if (!test) {
        *switched = true;
        return item;
      }
      in.Step();
    }
    return std::nullopt;
  });
}

Value GroupBy(Interpreter& interp, TypeObject&, CallArgs& args) {
  auto bound = BindArgs(interp, "groupby", args, {"iterable", "key="});
  // CPython's groupby object: the shared source, the last item read and its key (absent once
  // a group handed it out), the key of the current group, and which grouper is current.
  struct State {
    ObjectRef source;
    Value key_func;
    std::optional<Value> value, key, target;
    int64_t grouper = 0;  // the current group's number; 0 while none is current
    int64_t groups = 0;
    bool Read(Interpreter& in) {
      std::optional<Value> item = in.Next(source);
      if (!item) return false;
      key = key_func.is_none() ? *item : in.Call(key_func, std::vector<Value>{*item});
      value = item;
      return true;
    }
  };
  auto state =
      std::make_shared<State>(State{interp.GetIter(*bound[0]), bound[1].value_or(Value())});
  return Lazy(interp, "groupby", [state](Interpreter& in) -> std::optional<Value> {
    state->grouper = 0;
    while (!state->key || (state->target && in.Equals(*state->target, *state->key))) {
      if (!state->Read(in)) return std::nullopt;
      in.Step();
    }
    state->target = state->key;
    int64_t id = ++state->groups;
    state->grouper = id;
    Value target = *state->target;
    Value group = NewIterator(in, "itertools._grouper",
                              [state, id, target](Interpreter& inner) -> std::optional<Value> {
                                if (state->grouper != id) return std::nullopt;
                                if (!state->value && !state->Read(inner)) return std::nullopt;
                                if (!inner.Equals(target, *state->key)) return std::nullopt;
                                state->key.reset();
                                return std::exchange(state->value, std::nullopt);
                              });
    return MakeTuple({target, group});
  });
}

Value ISlice(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "islice", args, 2, 4);
  const auto& a = args.positional;
  // CPython's checks, in its order: -1 is the value that failed to convert, so a stop of -1
  // reads as not an integer, and other negative indices fail the range check.
  auto convert = [&](const Value& v, int64_t none) {
    if (v.is_none()) return none;
    return v.is_integral() ? v.integral() : -1;
  };
  int64_t start = a.size() == 2 ? 0 : convert(a[1], 0);
  int64_t stop = convert(a.size() == 2 ? a[1] : a[2], -1);
  if (stop == -1 && !(a.size() == 2 ? a[1] : a[2]).is_none()) {
    interp.Raise(interp.types().value_error,
                 "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.");
  }
  if (start < 0 || stop < -1) {
    interp.Raise(interp.types().value_error,
                 "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.");
  }
  int64_t step = a.size() == 4 ? convert(a[3], 1) : 1;
  if (step < 1) {
    interp.Raise(interp.types().value_error,
                 "Step for islice() must be a positive integer or None.");
  }
  struct State {
    ObjectRef source;
    int64_t count = 0, next, stop, step;
  };
  auto state = std::make_shared<State>(State{interp.GetIter(a[0]), 0, start, stop, step});
  return Lazy(interp, "islice", [state](Interpreter& in) -> std::optional<Value> {
    if (!state->source) return std::nullopt;
    std::optional<Value> item;
    while (state->count < state->next) {
      if (!in.Next(state->source)) {
        state->source = nullptr;
        return std::nullopt;
      }
      ++state->count;
      in.Step();
    }
    if ((state->stop >= 0 && state->count >= state->stop) || !(item = in.Next(state->source))) {
      state->source = nullptr;
      return std::nullopt;
    }
    ++state->count;
    state->next += state->step;
    if (state->stop >= 0 && state->next > state->stop) state->next = state->stop;
    return item;
  });
}

Value Pairwise(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "pairwise", args, 1, 1);
  ObjectRef source = interp.GetIter(args.positional[0]);
  auto previous = std::make_shared<std::optional<Value>>();
  return Lazy(interp, "pairwise", [source, previous](Interpreter& in) -> std::optional<Value> {
    if (!*previous && !(*previous = in.Next(source))) return std::nullopt;
    std::optional<Value> item = in.Next(source);
    if (!item) return std::nullopt;
    return MakeTuple({*std::exchange(*previous, item), *item});
  });
}

Value StarMap(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "starmap", args, 2, 2);
  Value function = args.positional[0];
  ObjectRef source = interp.GetIter(args.positional[1]);
  return Lazy(interp, "starmap", [function, source](Interpreter& in) -> std::optional<Value> {
    std::optional<Value> item = in.Next(source);
    if (!item) return std::nullopt;
    return in.Call(function, in.ToVector(*item));
  });
}

Value Tee(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "tee", args, 1, 2);
  int64_t n = args.positional.size() == 2 ? ToIndex(interp, args.positional[1]) : 2;
  if (n < 0) interp.Raise(interp.types().value_error, "n must be >= 0");
  // The items read but not yet seen by every copy; `base` is the index of buffer.front().
  struct State {
    ObjectRef source;
    std::deque<Value> buffer;
    int64_t base = 0;
    std::vector<int64_t> positions;
  };
  auto state = std::make_shared<State>(State{interp.GetIter(args.positional[0])});
  state->positions.assign(n, 0);
  std::vector<Value> copies;
  for (int64_t i = 0; i < n; ++i) {
    copies.push_back(Lazy(interp, "_tee", [state, i](Interpreter& in) -> std::optional<Value> {
      int64_t at = state->positions[i] - state->base;
      if (at >= static_cast<int64_t>(state->buffer.size())) {
        std::optional<Value> item = state->source ? in.Next(state->source) : std::nullopt;
        if (!item) return std::nullopt;
        state->buffer.push_back(*item);
      }
      Value item = state->buffer[at];
      ++state->positions[i];
      int64_t oldest = *std::min_element(state->positions.begin(), state->positions.end());
      for (; state->base < oldest; ++state->base) state->buffer.pop_front();
      return item;
    }));
  }
  return MakeTuple(std::move(copies));
}

Value ZipLongest(Interpreter& interp, TypeObject&, CallArgs& args) {
  Value fill;
  for (const auto& [name, value] : args.keywords) {
    if (name != "fillvalue") {
      interp.Raise(interp.types().type_error,
                   fmt::format("zip_longest() got an unexpected keyword argument '{}'", name));
    }
    fill = value;
  }
  auto sources = std::make_shared<std::vector<ObjectRef>>();
  for (const Value& iterable : args.positional) sources->push_back(interp.GetIter(iterable));
  auto active = std::make_shared<size_t>(sources->size());
  return Lazy(interp, "zip_longest",
              [sources, active, fill](Interpreter& in) -> std::optional<Value> {
                if (*active == 0) return std::nullopt;
                std::vector<Value> items;
                for (ObjectRef& source : *sources) {
                  std::optional<Value> item = source ? in.Next(source) : std::nullopt;
                  if (source && !item) {
                    source = nullptr;
                    if (--*active == 0) return std::nullopt;
                  }
                  items.push_back(item ? *item : fill);
                }
                return MakeTuple(std::move(items));
              });
}

// ---- Combinatorics ----------------------------------------------------------------------------

// A lazy sequence of tuples picked by indices: the first is `indices` as given (none when
// `empty`), then `advance` moves them to the next one and returns false after the last. Index i
// picks from pools[i], or from pools[0] for all when `shared`.
Value IndexTuples(Interpreter& interp, const char* name, std::vector<std::vector<Value>> pools,
                  bool shared, std::vector<size_t> indices, bool empty,
                  std::function<bool(std::vector<size_t>&)> advance) {
  struct State {
    std::vector<std::vector<Value>> pools;
    bool shared;
    std::vector<size_t> indices;
    bool first = true, done;
  };
  auto state =
      std::make_shared<State>(State{std::move(pools), shared, std::move(indices), true, empty});
  return Lazy(interp, name, [state, advance](Interpreter&) -> std::optional<Value> {
    if (state->done) return std::nullopt;
    if (!std::exchange(state->first, false) && !advance(state->indices)) {
      state->done = true;
      return std::nullopt;
    }
    std::vector<Value> items;
    for (size_t i = 0; i < state->indices.size(); ++i) {
      const auto& pool = state->shared ? state->pools[0] : state->pools[i];
      items.push_back(pool[state->indices[i]]);
    }
    return MakeTuple(std::move(items));
  });
}

Value Product(Interpreter& interp, TypeObject&, CallArgs& args) {
  int64_t repeat = 1;
  for (const auto& [name, value] : args.keywords) {
    if (name != "repeat") {
      interp.Raise(interp.types().type_error,
                   fmt::format("product() got an unexpected keyword argument '{}'", name));
    }
    repeat = ToIndex(interp, value);
  }
  if (repeat < 0) interp.Raise(interp.types().value_error, "repeat argument cannot be negative");
  std::vector<std::vector<Value>> pools;
  for (const Value& iterable : args.positional) pools.push_back(interp.ToVector(iterable));
  std::vector<std::vector<Value>> all;
  for (int64_t r = 0; r < repeat; ++r) all.insert(all.end(), pools.begin(), pools.end());
  bool empty = std::any_of(all.begin(), all.end(), [](const auto& p) { return p.empty(); });
  std::vector<size_t> sizes;
  for (const auto& pool : all) sizes.push_back(pool.size());
  return IndexTuples(interp, "product", std::move(all), false, std::vector<size_t>(sizes.size(), 0),
                     empty, [sizes](std::vector<size_t>& indices) {
                       for (size_t i = indices.size(); i-- > 0;) {
                         if (++indices[i] < sizes[i]) return true;
                         indices[i] = 0;
                       }
                       return false;
                     });
}

// The pool and r of permutations/combinations; r = -1 when absent.
std::pair<std::vector<Value>, int64_t> PoolAndR(Interpreter& interp, const char* name,
                                                CallArgs& args, bool r_required) {
  auto bound = BindArgs(interp, name, args, {"iterable", r_required ? "r" : "r="});
  std::vector<Value> pool = interp.ToVector(*bound[0]);
  int64_t r = bound[1] && !bound[1]->is_none() ? ToIndex(interp, *bound[1])
                                               : static_cast<int64_t>(pool.size());
  if (r < 0) interp.Raise(interp.types().value_error, "r must be non-negative");
  return {std::move(pool), r};
}

Value Permutations(Interpreter& interp, TypeObject&, CallArgs& args) {
  auto [pool, r] = PoolAndR(interp, "permutations", args, false);
  auto n = static_cast<int64_t>(pool.size());
  bool empty = r > n;
  // CPython's algorithm: `indices` holds all n indices (the first r are the tuple), `cycles`
  // counts down the swaps left at each position.
  std::vector<size_t> indices(n);
  for (int64_t i = 0; i < n; ++i) indices[i] = i;
  auto cycles = std::make_shared<std::vector<int64_t>>();
  for (int64_t i = 0; i < r && !empty; ++i) cycles->push_back(n - i);
  Value all = IndexTuples(interp, "permutations", {std::move(pool)}, true, indices, empty,
                          [n, r, cycles](std::vector<size_t>& idx) {
                            for (int64_t i = r - 1; i >= 0 && n > 0; --i) {
                              if (--(*cycles)[i] == 0) {
                                std::rotate(idx.begin() + i, idx.begin() + i + 1, idx.end());
                                (*cycles)[i] = n - i;
                              } else {
                                std::swap(idx[i], idx[n - (*cycles)[i]]);
                                return true;
                              }
                            }
                            return false;
                          });
  // Only the first r indices form each tuple.
  return Lazy(interp, "permutations", [all, r](Interpreter& in) -> std::optional<Value> {
    std::optional<Value> item = in.Next(all.object());
    if (!item) return std::nullopt;
    const auto& items = item->as<TupleObject>()->items;
    return MakeTuple(std::vector<Value>(items.begin(), items.begin() + r));
  });
}

template <bool with_replacement>
Value Combinations(Interpreter& interp, TypeObject&, CallArgs& args) {
  const char* name = with_replacement ? "combinations_with_replacement" : "combinations";
  auto [pool, r] = PoolAndR(interp, name, args, true);
  auto n = static_cast<int64_t>(pool.size());
  bool empty = with_replacement ? (n == 0 && r > 0) : r > n;
  std::vector<size_t> indices(r);
  for (int64_t i = 0; i < r; ++i) indices[i] = with_replacement ? 0 : i;
  return IndexTuples(
      interp, name, {std::move(pool)}, true, indices, empty, [n, r](std::vector<size_t>& idx) {
        int64_t i = r - 1;
        auto last = [&](int64_t k) {
          return static_cast<int64_t>(idx[k]) == (with_replacement ? n - 1 : k + n - r);
        };
        while (i >= 0 && last(i)) --i;
        if (i < 0) return false;
        ++idx[i];
        for (int64_t j = i + 1; j < r; ++j) {
          idx[j] = with_replacement ? idx[i] : idx[j - 1] + 1;
        }
        return true;
      });
}

}  // namespace

std::shared_ptr<ModuleObject> MakeItertoolsModule(Interpreter& interp) {
  auto module = std::make_shared<ModuleObject>("itertools");
  const std::pair<const char*, TypeObject::Constructor> classes[] = {
      {"count", Count},
      {"cycle", Cycle},
      {"repeat", Repeat},
      {"accumulate", Accumulate},
      {"chain",
       [](Interpreter& in, TypeObject&, CallArgs& args) {
         CheckNoKeywords(in, "chain", args);
         return ChainOf(in, in.GetIter(MakeTuple(args.positional)));
       }},
      {"compress", Compress},
      {"dropwhile", PredicateFilter<Filter::kDropWhile>},
      {"takewhile", PredicateFilter<Filter::kTakeWhile>},
      {"filterfalse", PredicateFilter<Filter::kFilterFalse>},
      {"groupby", GroupBy},
      {"islice", ISlice},
      {"pairwise", Pairwise},
      {"starmap", StarMap},
      {"zip_longest", ZipLongest},
      {"product", Product},
      {"permutations", Permutations},
      {"combinations", Combinations<false>},
      {"combinations_with_replacement", Combinations<true>},
  };
  for (const auto& [name, constructor] : classes) {
    auto type = std::make_shared<TypeObject>(name, interp.types().object, constructor);
    type->module = "itertools";
    module->Set(name, TypeValue(interp.AdoptType(type)));
  }
  module->attrs["chain"].as<TypeObject>()->Store(
      "from_iterable", interp.MakeBuiltin("from_iterable", [](Interpreter& in, CallArgs& args) {
        return ChainOf(in, in.GetIter(OneArg(in, "from_iterable", args)));
      }));
  module->Set("tee", interp.MakeBuiltin("tee", Tee));
  return module;
}

}  // namespace pz::eval
