// dist/memory-relief.node: the supervisor's collections at rest (src/host/restCollection.ts)
// in V8's memory-reducing mode, and glibc's malloc_trim. A plain `gc()` is a full collection
// that keeps the free parts of V8's pages resident and the young generation as large as the
// last burst left it; a collection in the memory-reducing mode gives both back, as V8's own
// memory reducer does seconds later. malloc_trim returns the free pages inside malloc's heap,
// which its trim threshold (src/host/mallocTuning.ts) returns only from the top. Figures:
// docs/benchmarks.md, "V8's memory-reducing collections and malloc_trim at rest".
//
// Registered through Node-API, so that any Node release loads it; the V8 calls
// (`Isolate::MemoryPressureNotification`, `Isolate::LowMemoryNotification`) have been part of
// V8's embedder API for many years.
#include <node_api.h>
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
  return Define(env, exports, "trim", Trim);
}
