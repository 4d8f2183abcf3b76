//===- FuzzPipeline.cpp - Bytes through the whole compile -----------------===//
//
// shardc-fuzz-pipeline: the input is a .shard file. It is loaded (imports
// from the source stdlib folder only), checked, run through every pass with
// the verifier after each, and the text, JSON and trace reports are
// rendered; diagnostics are discarded. Any crash, sanitizer report, broken
// IR invariant, bad cost (NaN, infinite, negative, MFU > 1) or JSON or trace
// output that does not parse or holds a number that is not finite aborts,
// which libFuzzer records.
//
//===----------------------------------------------------------------------===//
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Source(reinterpret_cast<const char *>(Data), Size);
  // Keep the fuzzer off the rest of the file system: -1 keeps such an
  // input out of the corpus.
  if (!shardc::testgen::importsStayInFolder(Source))
    return -1;
  shardc::testgen::InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  O.Trace = true;
  auto R = shardc::testgen::compileInProcess(Source, O);
  if (!R->InternalError.empty()) {
    std::fprintf(stderr, "shardc internal error: %s\n",
                 R->InternalError.c_str());
    std::abort();
  }
  return 0;
}
