// Entry points of a library opened with dlopen (the CUDA driver's, NVRTC's), bound by name.
#pragma once

#include <dlfcn.h>

#include <initializer_list>

namespace pz::cuda {

// Points `fn` at the first of `names` that `library` exports: the driver exports an API's newest
// version under a suffixed name (cuMemAlloc_v2) and keeps the plain name for old binaries.
template <typename F>
inline bool BindSymbol(void* library, F& fn, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (void* symbol = dlsym(library, name)) {
      fn = reinterpret_cast<F>(symbol);
      return true;
    }
  }
  fn = nullptr;
  return false;
}

}  // namespace pz::cuda
