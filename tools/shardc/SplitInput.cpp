//===- SplitInput.cpp - `// -----` separated programs in one file ---------===//
#include "SplitInput.h"

using namespace shardc;

/// Whether \p Line is a `--split-input-file` separator, `// -----`.
bool shardc::isSplitMarker(llvm::StringRef Line) {
  return Line.rtrim('\r') == "// -----";
}

/// The line number of \p Text's first separator, if it has one.
std::optional<unsigned> shardc::firstSplitMarker(llvm::StringRef Text) {
  unsigned Line = 0;
  while (!Text.empty()) {
    auto [First, Rest] = Text.split('\n');
    ++Line;
    if (isSplitMarker(First))
      return Line;
    Text = Rest;
  }
  return std::nullopt;
}

/// Splits \p Buffer on lines that are exactly `// -----`. Each chunk is
/// prefixed with the newlines of the lines before it, so diagnostics and
/// expectations keep the original file's line numbers.
std::vector<std::unique_ptr<llvm::MemoryBuffer>>
shardc::splitInput(const llvm::MemoryBuffer &Buffer) {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Chunks;
  llvm::StringRef Rest = Buffer.getBuffer();
  std::string Chunk;
  unsigned Line = 0, ChunkStart = 0;
  auto flush = [&] {
    Chunks.push_back(llvm::MemoryBuffer::getMemBufferCopy(
        std::string(ChunkStart, '\n') + Chunk, Buffer.getBufferIdentifier()));
    Chunk.clear();
  };
  while (!Rest.empty()) {
    size_t End = Rest.find('\n');
    llvm::StringRef Text = Rest.substr(0, End);
    llvm::StringRef WithNewline =
        End == llvm::StringRef::npos ? Rest : Rest.substr(0, End + 1);
    Rest = Rest.drop_front(WithNewline.size());
    ++Line;
    if (isSplitMarker(Text)) {
      flush();
      ChunkStart = Line;
      continue;
    }
    Chunk += WithNewline.str();
  }
  flush();
  return Chunks;
}
