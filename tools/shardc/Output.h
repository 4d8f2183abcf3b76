//===- Output.h - Where the driver's output goes ----------------*- C++ -*-===//
//
// The output file (`-o`, or stdout) and the document around each input's
// output: the JSON array, or the text headings and separators.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_OUTPUT_H
#define SHARDC_TOOLS_OUTPUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>

namespace shardc {

/// The run's output: stdout (`-`), a device or a pipe written in place, or
/// a regular file written to a temporary beside it and renamed over it by
/// commit(), so it is not emptied while the inputs are read (it may be one
/// of them, as an import or through stdin). A file no temporary can sit
/// beside is written in place.
class OutputTarget {
public:
  /// Opens \p Path; false after reporting why it cannot be written.
  bool open(llvm::StringRef Path);
  llvm::raw_fd_ostream &os() { return Temp ? *TempOS : Direct->os(); }
  /// Flushes and keeps the output; false after reporting a write error.
  bool commit();
  /// Flushes what was written and drops a temporary (an internal error).
  void abandon();

private:
  bool failed(llvm::StringRef Why);

  std::string Path;
  std::optional<llvm::sys::fs::TempFile> Temp;
  std::optional<llvm::raw_fd_ostream> TempOS;
  std::optional<llvm::ToolOutputFile> Direct;
};

/// Writes each input's output as it is produced, straight to the output
/// stream (a 30,000-op JSON report is tens of MB: nothing holds it in
/// memory), and what goes around it: with \p Json the array of entries,
/// one per file (per chunk under --split-input-file); in text, chunks
/// separated by `// -----`, and each file under a `==> FILE <==` heading
/// when there are several. The stream is flushed after each chunk, so a
/// chunk's output follows its diagnostics on a terminal.
class OutputWriter {
public:
  OutputWriter(llvm::raw_ostream &OS, bool Json,
               llvm::ArrayRef<std::string> Inputs);
  /// The stream for chunk \p Chunk of input file \p File.
  llvm::raw_ostream &beginChunk(size_t File, size_t Chunk);
  void endChunk() { OS.flush(); }
  void finish();

private:
  llvm::raw_ostream &OS;
  bool Json;
  llvm::ArrayRef<std::string> Inputs;
  size_t Entries = 0;
};

} // namespace shardc

#endif
