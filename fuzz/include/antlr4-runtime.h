//===- antlr4-runtime.h - The ANTLR runtime header, as clang sees it ------===//
//
// Found before /usr/include/antlr4-runtime in clang builds (fuzz/Flags.cmake).
// With libstdc++ 12, std::vector's default constructor is defaulted rather
// than user-provided, so clang deletes dfa::Vocabulary's defaulted
// constructor (its const std::vector members have no initializer) and then
// rejects InterpreterDataReader.h, which calls it; g++ accepts it. Giving
// those three members an empty initializer while Vocabulary.h is read fixes
// that without changing the class's layout; the names are released before
// the rest of the runtime (XPathLexer.h reuses them) is included.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FUZZ_ANTLR4_RUNTIME_SHIM_H
#define SHARDC_FUZZ_ANTLR4_RUNTIME_SHIM_H

// clang-format off
#define _literalNames _literalNames{}
#define _symbolicNames _symbolicNames{}
#define _displayNames _displayNames{}
// clang-format on
#include <Vocabulary.h>
#undef _literalNames
#undef _symbolicNames
#undef _displayNames

#include_next <antlr4-runtime.h>

#endif // SHARDC_FUZZ_ANTLR4_RUNTIME_SHIM_H
