//===- FuzzStructured.cpp - Generated programs through the compile --------===//
//
// shardc-fuzz-structured: the input bytes are the choices of
// tests/support/ProgramGenerator or StepGenerator (through FuzzedChooser),
// so nearly every input is a program that parses and checks, and the fuzzer
// spends its time in insert-collectives, derive-backward, the schedule,
// placement and the cost model. The oracle is the
// same as shardc-fuzz-pipeline's: no crash, no broken invariant, no bad cost,
// and JSON and trace output that parse, with only finite numbers.
//
//===----------------------------------------------------------------------===//
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include "tests/support/FuzzedChooser.h"
#include "tests/support/StepGenerator.h"
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  FuzzedDataProvider Bytes(Data, Size);
  shardc::testgen::FuzzedChooser Choices(Bytes);
  // Half the inputs draw a forward program of any shape, half a whole
  // training step (train, pipelines, the model builtins, every setting).
  std::string Program;
  if (Choices.percent(50)) {
    shardc::testgen::GeneratorOptions G;
    G.WrongPercent = 2;
    Program = shardc::testgen::generateProgram(Choices, G);
  } else {
    Program =
        shardc::testgen::generateStep(Choices, /*WrongPercent=*/5).render();
  }
  shardc::testgen::InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  O.Trace = true;
  auto R = shardc::testgen::compileInProcess(Program, O);
  if (!R->InternalError.empty()) {
    std::fprintf(stderr, "shardc internal error: %s\nprogram:\n%s\n",
                 R->InternalError.c_str(), Program.c_str());
    std::abort();
  }
  return 0;
}
