//===- Output.cpp - Where the driver's output goes ------------------------===//
#include "Output.h"
#include "llvm/Support/WithColor.h"

using namespace shardc;
namespace fs = llvm::sys::fs;

bool OutputTarget::failed(llvm::StringRef Why) {
  llvm::WithColor::error(llvm::errs(), "shardc")
      << "cannot write '" << Path << "': " << Why << "\n";
  return false;
}

bool OutputTarget::open(llvm::StringRef P) {
  Path = P.str();
  fs::file_status St;
  bool InPlace = Path == "-" || (!fs::status(Path, St) &&
                                 St.type() != fs::file_type::regular_file);
  if (!InPlace) {
    llvm::Expected<fs::TempFile> T =
        fs::TempFile::create(Path + ".shardc-%%%%%%");
    if (T) {
      Temp.emplace(std::move(*T));
      TempOS.emplace(Temp->FD, /*shouldClose=*/false);
      return true;
    }
    llvm::consumeError(T.takeError());
  }
  std::error_code EC;
  Direct.emplace(Path, EC, fs::OF_None);
  return !EC || failed(EC.message());
}

bool OutputTarget::commit() {
  llvm::raw_fd_ostream &OS = os();
  OS.flush();
  if (OS.has_error()) {
    std::string Why = OS.error().message();
    OS.clear_error();
    abandon();
    return failed(Why);
  }
  if (Direct) {
    Direct->keep();
    return true;
  }
  if (llvm::Error E = Temp->keep(Path))
    return failed(llvm::toString(std::move(E)));
  return true;
}

void OutputTarget::abandon() {
  os().flush();
  if (Temp)
    llvm::consumeError(Temp->discard());
}

OutputWriter::OutputWriter(llvm::raw_ostream &OS, bool Json,
                           llvm::ArrayRef<std::string> Inputs)
    : OS(OS), Json(Json), Inputs(Inputs) {
  if (Json)
    OS << "[\n";
}

llvm::raw_ostream &OutputWriter::beginChunk(size_t File, size_t Chunk) {
  if (Json)
    OS << (Entries++ ? ",\n" : "");
  else if (Chunk > 0)
    OS << "// -----\n";
  else if (Inputs.size() > 1)
    OS << (File ? "\n" : "") << "==> " << Inputs[File] << " <==\n";
  return OS;
}

void OutputWriter::finish() {
  if (Json)
    OS << "\n]\n";
}
