//===- Version.cpp - What --version prints --------------------------------===//
#include "Version.h"
#include "shardc/Config.h"
#include <new>
#if SHARDC_MIMALLOC
#include <mimalloc.h>
#endif

using namespace shardc;

#if SHARDC_MIMALLOC
/// Whether mimalloc serves this process's allocations: linked in, and not
/// displaced by an allocator that binds first (a sanitizer's, LD_PRELOAD).
static bool mimallocInUse() {
  void *P = ::operator new(64);
  bool InUse = mi_is_in_heap_region(P);
  ::operator delete(P);
  return InUse;
}
#endif

void shardc::printVersion(llvm::raw_ostream &OS) {
  OS << "shardc " << SHARDC_VERSION << "\n";
#if SHARDC_MIMALLOC
  if (mimallocInUse()) {
    int V = mi_version();
    OS << "allocator: mimalloc " << V / 100 << "." << V / 10 % 10 << "."
       << V % 10 << "\n";
    return;
  }
#endif
  OS << "allocator: malloc (not mimalloc)\n";
}
