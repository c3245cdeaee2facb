// dist/memory-relief.node: the supervisor's collections at rest (src/host/restCollection.ts)
// in V8's memory-reducing mode, and glibc's malloc_trim. A plain `gc()` is a full collection
// that keeps the free parts of V8's pages resident and the young generation as large as the
// last burst left it; a collection in the memory-reducing mode gives both back, as V8's own
// memory reducer does seconds later. malloc_trim returns the free pages inside malloc's heap,
// which its trim threshold (src/host/mallocTuning.ts) returns only from the top. Figures:
// docs/benchmarks.md, "V8's memory-reducing collections and malloc_trim at rest".
//
// It also maps the supervisor's own bundle as the source of its script (`mapSource`, called by
// the launcher): V8 keeps a script's source for as long as the script lives (to compile a
// function at its first call), ~0.9 MiB of heap for dist/host.cjs. Mapped from a file, it is
// file pages instead, which `evictSource` lets go at rest and the kernel reads again when needed.
//
// Registered through Node-API, so that any Node release loads it; the V8 calls
// (`Isolate::MemoryPressureNotification`, `Isolate::LowMemoryNotification`) have been part of
// V8's embedder API for many years. External strings are Node-API's experimental
// `node_api_create_external_string_latin1` (Node 20.4 and later): without it, no `mapSource`.
#define NAPI_EXPERIMENTAL
#include <node_api.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <v8.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

// One full collection in V8's memory-reducing mode (as under critical memory pressure): a second
// one only when it leaves much garbage behind.
napi_value Reduce(napi_env, napi_callback_info) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  isolate->MemoryPressureNotification(v8::MemoryPressureLevel::kCritical);
  isolate->MemoryPressureNotification(v8::MemoryPressureLevel::kNone);
  return nullptr;
}

// Full collections in that mode until one frees nothing more (V8's low-memory notification):
// usually two, twice the pause, ~1 MiB less resident than one.
napi_value ReduceAll(napi_env, napi_callback_info) {
  v8::Isolate::GetCurrent()->LowMemoryNotification();
  return nullptr;
}

// true when malloc gave memory back to the system
napi_value Trim(napi_env env, napi_callback_info) {
#if defined(__GLIBC__)
  const bool released = malloc_trim(0) != 0;
#else
  const bool released = false;
#endif
  napi_value out;
  napi_get_boolean(env, released, &out);
  return out;
}

#if defined(NODE_API_EXPERIMENTAL_HAS_EXTERNAL_STRINGS)
// Weak: a Node older than the headers the addon was built with may lack it (before 20.4), and the
// addon must still load there (bound lazily, a call to it would end the process): no mapSource.
#pragma weak node_api_create_external_string_latin1

// The one mapped source (the launcher maps one bundle), for `evictSource`.
char* mapped = nullptr;
size_t mappedLength = 0;

// a template: the finalizer's environment type differs between Node releases
template <typename Env>
void Unmap(Env, void* data, void* hint) {
  const size_t length = reinterpret_cast<size_t>(hint);
  if (data == mapped) {
    mapped = nullptr;
    mappedLength = 0;
  }
  munmap(data, length);
}

// mapSource(fd): the whole file open at `fd`, read-only and private, as a Latin-1 string whose
// characters stay in the file's pages. The caller keeps the file from changing (an unlinked copy
// of its own) and checks it is ASCII. Throws when it cannot map it, or when V8 copied it.
napi_value MapSource(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  int32_t fd = -1;
  if (napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, arg, &fd) != napi_ok) {
    napi_throw_type_error(env, nullptr, "mapSource(fd): a file descriptor");
    return nullptr;
  }
  struct stat st;
  if (mapped != nullptr || fstat(fd, &st) != 0 || st.st_size <= 0) {
    napi_throw_error(env, nullptr, "mapSource: nothing to map (one source, a non-empty file)");
    return nullptr;
  }
  const size_t length = static_cast<size_t>(st.st_size);
  void* data = mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, 0);
  if (data == MAP_FAILED) {
    napi_throw_error(env, nullptr, "mapSource: mmap failed");
    return nullptr;
  }
  napi_value out;
  bool copied = false;
  if (node_api_create_external_string_latin1(env, static_cast<char*>(data), length, Unmap,
                                             reinterpret_cast<void*>(length), &out, &copied) != napi_ok) {
    munmap(data, length);
    napi_throw_error(env, nullptr, "mapSource: no external string");
    return nullptr;
  }
  // a copy in V8's heap (it has unmapped the file already): nothing gained, say so
  if (copied) {
    napi_throw_error(env, nullptr, "mapSource: V8 copied the source");
    return nullptr;
  }
  mapped = static_cast<char*>(data);
  mappedLength = length;
  return out;
}

// The mapped source's pages out of the process's memory (read again from the file on access);
// the number of bytes advised, 0 without a mapped source.
napi_value EvictSource(napi_env env, napi_callback_info) {
  const bool advised = mapped != nullptr && madvise(mapped, mappedLength, MADV_DONTNEED) == 0;
  napi_value out;
  napi_create_double(env, advised ? static_cast<double>(mappedLength) : 0, &out);
  return out;
}
#endif

napi_value Define(napi_env env, napi_value exports, const char* name, napi_callback f) {
  napi_value fn;
  if (napi_create_function(env, name, NAPI_AUTO_LENGTH, f, nullptr, &fn) != napi_ok) return nullptr;
  if (napi_set_named_property(env, exports, name, fn) != napi_ok) return nullptr;
  return exports;
}

}  // namespace

NAPI_MODULE_INIT() {
  if (Define(env, exports, "reduce", Reduce) == nullptr) return nullptr;
  if (Define(env, exports, "reduceAll", ReduceAll) == nullptr) return nullptr;
#if defined(NODE_API_EXPERIMENTAL_HAS_EXTERNAL_STRINGS)
  if (&node_api_create_external_string_latin1 != nullptr) {
    if (Define(env, exports, "mapSource", MapSource) == nullptr) return nullptr;
    if (Define(env, exports, "evictSource", EvictSource) == nullptr) return nullptr;
  }
#endif
  return Define(env, exports, "trim", Trim);
}
