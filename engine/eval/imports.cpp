// Imports: builtin modules, and `.py` files and package folders beside the main program, as
// CPython imports them for a script (run once in their own global scope, cached by dotted name,
// relative imports inside packages, circular imports seeing a partially initialised module).
// Builtin modules always win over files of the same name; no file outside the folder of the
// main program is ever read.
#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "eval/evaluator.h"
#include "eval/interpreter.h"
#include "eval/scope.h"
#include "lang/parser.h"

namespace pz::eval {
namespace fs = std::filesystem;
namespace {

// Largest module file read; a bigger one is surely not Python source meant for a program.
constexpr uintmax_t kMaxModuleFileBytes = uintmax_t{8} << 20;

// True if `path` is `root` or lies below it (both canonical).
bool IsInsideRoot(const fs::path& path, const fs::path& root) {
  auto [root_end, path_end] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

// The byte offset of the first invalid UTF-8 sequence of `text`, or npos.
size_t FirstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    auto byte = static_cast<unsigned char>(text[i]);
    size_t length = byte < 0x80           ? 1
                    : (byte >> 5) == 0x6  ? 2
                    : (byte >> 4) == 0xE  ? 3
                    : (byte >> 3) == 0x1E ? 4
                                          : 0;
    if (length == 0 || i + length > text.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

std::string BuiltinModuleList(const Interpreter& interp) {
  std::string list;
  for (const std::string& name : interp.ModuleNames()) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

// True if `top` names a builtin module or a builtin package (`jax` for `jax.numpy`).
bool IsBuiltinTopLevel(const Interpreter& interp, const std::string& top) {
  const std::vector<std::string> names = interp.ModuleNames();
  return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
    return name == top || name.rfind(top + ".", 0) == 0;
  });
}

// `(/path/helper.py)` as CPython's ImportError names the module's file.
std::string ModuleLocation(const ModuleObject& module) {
  if (!module.file.empty()) return fmt::format(" ({})", module.file);
  if (module.globals != nullptr) return " (unknown location)";
  return "";
}

}  // namespace

void Interpreter::SetImportRoot(FileId file) {
  if (!file.valid()) return;
  const std::string& path = sources_.Get(file).path();
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return;
  fs::path canonical = fs::weakly_canonical(fs::absolute(path, error), error);
  if (error) return;
  import_root_ = canonical.parent_path();
  import_display_root_ = fs::path(path).parent_path();
}

std::shared_ptr<ModuleObject> Interpreter::ImportModule(const std::string& name) {
  if (std::shared_ptr<ModuleObject> builtin = FindModule(name)) return builtin;
  if (auto it = file_modules_.find(name); it != file_modules_.end()) return it->second;
  std::string top = name.substr(0, name.find('.'));
  auto not_found = [&](const std::string& missing) {
    std::vector<std::string> notes;
    if (auto suggestion = SuggestName(missing, ModuleNames())) {
      notes.push_back(fmt::format("did you mean `{}`?", *suggestion));
    }
    notes.push_back("programs can import the engine's builtin modules (" +
                    BuiltinModuleList(*this) +
                    ") and `.py` files and package folders beside the program");
    RaiseWithNotes(types_.module_not_found_error, fmt::format("No module named '{}'", missing),
                   std::move(notes));
  };
  if (IsBuiltinTopLevel(*this, top)) not_found(name);
  std::shared_ptr<ModuleObject> module;
  std::string prefix;
  size_t begin = 0;
  while (begin <= name.size()) {
    size_t end = std::min(name.find('.', begin), name.size());
    std::string part = name.substr(begin, end - begin);
    prefix = prefix.empty() ? part : prefix + "." + part;
    begin = end + 1;
    if (module != nullptr && module->package_dir.empty()) {
      Raise(types_.module_not_found_error,
            fmt::format("No module named '{}'; '{}' is not a package", prefix, module->name));
    }
    std::shared_ptr<ModuleObject> child = FindFileModule(module.get(), prefix, part);
    if (child == nullptr) not_found(prefix);
    module = std::move(child);
  }
  return module;
}

std::shared_ptr<ModuleObject> Interpreter::FindFileModule(ModuleObject* parent,
                                                          const std::string& name,
                                                          const std::string& part) {
  if (auto it = file_modules_.find(name); it != file_modules_.end()) return it->second;
  fs::path folder = parent != nullptr ? fs::path(parent->package_dir) : import_root_;
  if (folder.empty()) return nullptr;
  fs::path base = folder / part;
  std::error_code error;
  auto inside = [&](const fs::path& path) {
    fs::path canonical = fs::weakly_canonical(path, error);
    return !error && IsInsideRoot(canonical, import_root_);
  };
  std::shared_ptr<ModuleObject> module;
  if (fs::path init = base / "__init__.py"; fs::is_regular_file(init, error) && inside(init)) {
    module = LoadFileModule(name, init, base);
  } else if (fs::path file = fs::path(base).concat(".py");
             fs::is_regular_file(file, error) && inside(file)) {
    module = LoadFileModule(name, file, {});
  } else if (fs::is_directory(base, error) && inside(base)) {
    // A namespace package: a folder without `__init__.py`.
    auto globals = std::make_shared<Environment>(nullptr, nullptr);
    TrackEnvironment(globals);
    globals->vars["__name__"] = MakeStr(name);
    globals->vars["__package__"] = MakeStr(name);
    globals->vars["__path__"] = MakeList({MakeStr(base.string())});
    module = std::make_shared<ModuleObject>(name);
    module->globals = std::move(globals);
    module->package_dir = base.string();
    file_modules_[name] = module;
  } else {
    return nullptr;
  }
  // CPython binds a submodule in its package once it has loaded.
  if (parent != nullptr) parent->Names()[part] = Value(module);
  return module;
}

std::shared_ptr<ModuleObject> Interpreter::LoadFileModule(const std::string& name,
                                                          const fs::path& path,
                                                          const fs::path& package_dir) {
  std::error_code error;
  fs::path display = import_display_root_ / fs::relative(path, import_root_, error);
  if (error) display = path;
  uintmax_t size = fs::file_size(path, error);
  if (!error && size > kMaxModuleFileBytes) {
    Raise(types_.import_error,
          fmt::format("module file `{}` has {} bytes, more than the {} MiB a module may have; "
                      "is it really Python source?",
                      display.string(), size, kMaxModuleFileBytes >> 20));
  }
  std::optional<std::string> text = ReadFile(path);
  if (!text) Raise(types_.import_error, fmt::format("cannot read `{}`", display.string()));
  if (depth() >= options_.max_recursion) {
    Raise(types_.recursion_error,
          fmt::format("maximum recursion depth exceeded while importing '{}'", name));
  }
  std::string file = fs::absolute(path, error).lexically_normal().string();
  FileId id = sources_.Add(display.string(), std::move(*text));
  const SourceFile& source = sources_.Get(id);

  // A syntax error stops the import where CPython reports it: at the module's line.
  auto raise_syntax_error = [&](std::string message, SourceSpan span, std::vector<Note> related) {
    auto exception = NewException(types_.syntax_error, {MakeStr(std::move(message))});
    exception->span = span;
    exception->traceback = Traceback();
    exception->traceback.push_back(TraceEntry{span, "<module>"});
    exception->related = std::move(related);
    throw PyError{std::move(exception)};
  };
  if (size_t bad = FirstInvalidUtf8(source.text()); bad != std::string_view::npos) {
    int line = source.Locate(static_cast<uint32_t>(bad)).line;
    raise_syntax_error(
        fmt::format("Non-UTF-8 code starting with '\\x{:02x}' in file {} on line {}, but no "
                    "encoding declared",
                    static_cast<unsigned char>(source.text()[bad]), file, line),
        SourceSpan{id, static_cast<uint32_t>(bad), static_cast<uint32_t>(bad + 1)}, {});
  }
  DiagnosticSink sink;
  lang::Module program = lang::ParseModule(source, id, sink);
  if (sink.HasErrors()) {
    for (const Diagnostic& diagnostic : sink.diagnostics()) {
      if (diagnostic.severity != Severity::kError) continue;
      raise_syntax_error(diagnostic.message, diagnostic.span.value_or(SourceSpan{id, 0, 0}),
                         diagnostic.notes);
    }
  }
  programs_.push_back(std::make_unique<lang::Module>(std::move(program)));
  const lang::Module& body = *programs_.back();

  auto globals = std::make_shared<Environment>(nullptr, nullptr);
  TrackEnvironment(globals);
  bool is_package = !package_dir.empty();
  size_t dot = name.rfind('.');
  globals->vars["__name__"] = MakeStr(name);
  globals->vars["__file__"] = MakeStr(file);
  globals->vars["__package__"] = MakeStr(is_package                 ? name
                                         : dot == std::string::npos ? ""
                                                                    : name.substr(0, dot));
  if (is_package) globals->vars["__path__"] = MakeList({MakeStr(package_dir.string())});
  auto module = std::make_shared<ModuleObject>(name);
  module->globals = globals;
  module->file = file;
  module->package_dir = package_dir.string();
  module->initializing = true;
  file_modules_[name] = module;

  frames_.push_back(Frame{"<module>", SourceSpan{}});
  try {
    Evaluator evaluator(*this);
    Scope scope{globals, nullptr, globals.get(), Value()};
    evaluator.ExecModule(body.body, scope);
  } catch (...) {
    frames_.pop_back();
    module->initializing = false;
    file_modules_.erase(name);
    throw;
  }
  frames_.pop_back();
  module->initializing = false;
  return module;
}

std::string Interpreter::ResolveRelativeImport(const std::string& name, int level,
                                               Environment& globals) {
  Value* package = globals.Find("__package__");
  auto* package_name = package != nullptr ? package->as<StrObject>() : nullptr;
  if (package_name == nullptr || package_name->value.empty()) {
    Raise(types_.import_error, "attempted relative import with no known parent package");
  }
  std::string base = package_name->value;
  for (int i = 1; i < level; ++i) {
    size_t dot = base.rfind('.');
    if (dot == std::string::npos) {
      Raise(types_.import_error, "attempted relative import beyond top-level package");
    }
    base.resize(dot);
  }
  return name.empty() ? base : base + "." + name;
}

Value Interpreter::ImportFrom(ModuleObject& module, const std::string& name) {
  std::unordered_map<std::string, Value>& names = module.Names();
  if (auto it = names.find(name); it != names.end()) return it->second;
  std::string full = module.name + "." + name;
  if (std::shared_ptr<ModuleObject> builtin = FindModule(full)) return Value(builtin);
  if (!module.package_dir.empty()) {
    if (auto child = FindFileModule(&module, full, name)) return Value(child);
  }
  std::vector<std::string> candidates;
  for (const auto& [key, value] : names) candidates.push_back(key);
  std::vector<std::string> notes;
  if (auto suggestion = SuggestName(name, candidates)) {
    notes.push_back(fmt::format("did you mean `{}`?", *suggestion));
  }
  if (module.initializing) {
    RaiseWithNotes(types_.import_error,
                   fmt::format("cannot import name '{}' from partially initialized module '{}' "
                               "(most likely due to a circular import){}",
                               name, module.name, ModuleLocation(module)),
                   std::move(notes));
  }
  RaiseWithNotes(
      types_.import_error,
      fmt::format("cannot import name '{}' from '{}'{}", name, module.name, ModuleLocation(module)),
      std::move(notes));
}

std::vector<std::pair<std::string, Value>> Interpreter::ImportStar(ModuleObject& module) {
  std::vector<std::pair<std::string, Value>> bound;
  std::unordered_map<std::string, Value>& names = module.Names();
  if (auto all = names.find("__all__"); all != names.end() && module.globals != nullptr) {
    for (const Value& item : ToVector(all->second)) {
      auto* attr = item.as<StrObject>();
      if (attr == nullptr) {
        Raise(types_.type_error,
              fmt::format("Item in {}.__all__ must be str, not {}", module.name, TypeName(item)));
      }
      bound.emplace_back(attr->value, GetAttr(Value(module.shared_from_this()), attr->value));
    }
    return bound;
  }
  for (const auto& [key, value] : names) {
    if (!key.empty() && key[0] != '_') bound.emplace_back(key, value);
  }
  std::sort(bound.begin(), bound.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return bound;
}

}  // namespace pz::eval
