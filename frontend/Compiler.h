//===- Compiler.h - From a main buffer to a checked IR module ---*- C++ -*-===//
//
// The frontend's public face: load the main buffer and its imports, check
// every declaration and statement, and lower the program to IR. The driver
// owns the SourceMgr and the DiagnosticEngine; a Program owns everything the
// module points into (ASTs, chips, clusters, meshes).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_COMPILER_H
#define SHARDC_FRONTEND_COMPILER_H

#include "frontend/AST.h"
#include "frontend/Parser.h"
#include "ir/IR.h"
#include "ir/Search.h"
#include "ir/Serve.h"
#include "llvm/Support/ErrorOr.h"
#include "llvm/Support/MemoryBuffer.h"
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardc {
class DiagnosticEngine;

struct CompileOptions {
  /// Searched first for imports: the stdlib folder, which the driver finds
  /// relative to its binary.
  std::string StdlibDir;
  /// `-I` folders, searched next, in order; then the importing file's folder.
  std::vector<std::string> IncludeDirs;
  ParseLimits Limits;
  unsigned MaxImportDepth = 64;
};

struct Program {
  /// Every parsed file, imports before the files that import them; the main
  /// file is last.
  std::vector<std::unique_ptr<FileAST>> Files;
  std::deque<MeshSpec> Meshes;
  /// The checked module: high-level ops on the chosen mesh. Null when the
  /// program declares no mesh (a file of presets, say). It owns everything
  /// it refers to, so it outlives the ASTs.
  std::unique_ptr<Module> IR;
  /// Set when the main file is a search (a `?` mesh size, a searched knob
  /// or a `search { }` block): IR is then checked on the mesh with each
  /// searched axis at size 1 and the train settings' first values, and the
  /// search (search/) compiles each candidate from it.
  std::optional<SearchSpec> Search;
  /// Set when the main file has a `serve { }` block: IR is then checked
  /// with the phase dims at batch 1, new = the prompt and context = the
  /// capacity, and the serve engine (serve/) compiles each instance.
  std::optional<ServeSpec> Serve;
  /// The stdlib folder the imports were searched in, read again only to say
  /// which import an undefined name is missing.
  std::string StdlibDir;
  /// The `-D` values as edits of the main file's text (the range they
  /// replace, empty to insert, and what they write), in command-line
  /// order: what a file printed from this program (--emit=best) applies,
  /// so it holds them.
  struct TextEdit {
    llvm::SMRange Range;
    std::string Text;
  };
  std::vector<TextEdit> OverrideEdits;
};

/// Parses buffer \p MainBuffer and, recursively, its imports. Returns false
/// after reporting errors.
bool loadProgram(unsigned MainBuffer, DiagnosticEngine &Diags,
                 const CompileOptions &Opts, Program &P);

/// Checks the loaded program and lowers it to IR (P.IR). Returns false after
/// reporting errors.
bool checkProgram(DiagnosticEngine &Diags, Program &P);

/// Reads a source file (`-` is stdin). A regular file is mapped whatever its
/// size (the parser refuses it past ParseLimits::MaxFileBytes, at its first
/// byte); a pipe or a device is read only up to \p MaxBytes, so /dev/zero or
/// an endless pipe is "File too large" instead of exhausting memory. Lone
/// '\r' line ends become '\n', so lines count as an editor shows them, and
/// a UTF-8 byte-order mark is dropped.
llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
readSourceFile(llvm::StringRef Path, uint64_t MaxBytes);

/// A source's text as the lexer and llvm::SourceMgr count it: each lone
/// '\r' becomes '\n' (so classic Mac line ends are lines), '\r\n' stays, and
/// a leading UTF-8 byte-order mark is dropped. readSourceFile applies it;
/// whatever hands the compiler a source another way (an in-process compile
/// of a string) must too, or its diagnostics land on other lines. A source
/// past \p MaxBytes is returned as it is, for the parser to refuse.
std::unique_ptr<llvm::MemoryBuffer>
normalizeSource(std::unique_ptr<llvm::MemoryBuffer> Buf, uint64_t MaxBytes);

} // namespace shardc

#endif // SHARDC_FRONTEND_COMPILER_H
