//===- Imports.cpp - Loading a file and its imports -----------------------===//
//
// Search order for `import "x.shard";` (LANGUAGE.md §2): the stdlib folder
// (found by the driver next to its binary), then each `-I` folder, then the
// importing file's folder. Each file is parsed once however often it is
// imported (by real path); a file that imports itself, directly or through
// others, is an error that shows the chain.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "diag/Suggest.h"
#include "frontend/Compiler.h"
#include "frontend/Stdlib.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace shardc;

namespace {

class Loader {
public:
  Loader(DiagnosticEngine &D, const CompileOptions &O, Program &P)
      : Diags(D), Opts(O), P(P) {}
  bool load(unsigned Buffer, const std::string &Key);

private:
  bool importAll(const FileAST &F, llvm::StringRef Dir);
  std::optional<std::string> find(const ImportDecl &I, llvm::StringRef Dir,
                                  std::string &Searched);
  void reportNotFound(const ImportDecl &I, const std::string &Searched);
  std::string chain(const std::string &Key) const;

  DiagnosticEngine &Diags;
  const CompileOptions &Opts;
  Program &P;
  llvm::StringSet<> Done;
  std::vector<std::string> Stack; ///< real paths being loaded, outermost first
};

std::string realPath(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Path, Real))
    return Path.str();
  return std::string(Real.str());
}

std::string Loader::chain(const std::string &Key) const {
  std::vector<std::string> Names;
  auto It = std::find(Stack.begin(), Stack.end(), Key);
  for (; It != Stack.end(); ++It)
    Names.push_back(llvm::sys::path::filename(*It).str());
  Names.push_back(llvm::sys::path::filename(Key).str());
  return llvm::join(Names, " -> ");
}

std::optional<std::string>
Loader::find(const ImportDecl &I, llvm::StringRef Dir, std::string &Searched) {
  std::vector<std::string> Dirs;
  if (!Opts.StdlibDir.empty())
    Dirs.push_back(Opts.StdlibDir);
  Dirs.insert(Dirs.end(), Opts.IncludeDirs.begin(), Opts.IncludeDirs.end());
  Dirs.push_back(Dir.empty() ? "." : Dir.str());
  if (llvm::sys::path::is_absolute(I.Path))
    Dirs = {""};
  for (const std::string &D : Dirs) {
    llvm::SmallString<256> Path(D);
    llvm::sys::path::append(Path, I.Path);
    if (llvm::sys::fs::exists(Path))
      return std::string(Path.str());
  }
  Searched = llvm::join(Dirs, ", ");
  return std::nullopt;
}

/// Reports an import found nowhere, with the stdlib file it probably meant:
/// the same name in another case (`NVIDIA.shard`), a typo, or the name
/// without its `.shard` (`"nvidia"`). Only a bare file name is compared: a
/// path with folders is not a misspelt preset.
void Loader::reportNotFound(const ImportDecl &I, const std::string &Searched) {
  llvm::StringRef Path = I.Path;
  std::optional<std::string> Best;
  if (llvm::sys::path::filename(Path) == Path) {
    std::vector<std::string> Files = stdlibFileNames(Opts.StdlibDir);
    Best = closestName(Path, Files);
    if (!Best && !Path.endswith(".shard"))
      Best = closestName((Path + ".shard").str(), Files);
  }
  if (Best && *Best != Path)
    Diags.report(I.PathRange, diag::ImportNotFoundSuggest, Path, *Best,
                 Searched);
  else
    Diags.report(I.PathRange, diag::ImportNotFound, Path, Searched);
}

bool Loader::importAll(const FileAST &F, llvm::StringRef Dir) {
  bool Ok = true;
  for (const DeclPtr &D : F.Items) {
    auto *I = llvm::dyn_cast<ImportDecl>(D.get());
    if (!I || Diags.shouldStop())
      continue;
    std::string Searched;
    std::optional<std::string> Path = find(*I, Dir, Searched);
    if (!Path) {
      reportNotFound(*I, Searched);
      Ok = false;
      continue;
    }
    std::string Key = realPath(*Path);
    if (llvm::is_contained(Stack, Key)) {
      Diags.report(I->PathRange, diag::ImportCycle, I->Path, chain(Key));
      Ok = false;
      continue;
    }
    if (Done.count(Key))
      continue;
    // Stack holds the main file too, so its size is how deep this import
    // would nest.
    if (Stack.size() > Opts.MaxImportDepth) {
      Diags.report(I->PathRange, diag::ImportDepth, Opts.MaxImportDepth);
      return false;
    }
    if (llvm::sys::fs::is_directory(*Path)) {
      Diags.report(I->PathRange, diag::ImportUnreadable, I->Path,
                   "it is a directory");
      Ok = false;
      continue;
    }
    // A FIFO would block until something writes to it, and a device never
    // ends: an import must be a regular file.
    if (!llvm::sys::fs::is_regular_file(*Path)) {
      Diags.report(I->PathRange, diag::ImportUnreadable, I->Path,
                   "it is not a regular file");
      Ok = false;
      continue;
    }
    auto Buf = readSourceFile(*Path, Opts.Limits.MaxFileBytes);
    if (!Buf) {
      Diags.report(I->PathRange, diag::ImportUnreadable, I->Path,
                   Buf.getError().message());
      Ok = false;
      continue;
    }
    unsigned Id =
        Diags.sourceMgr().AddNewSourceBuffer(std::move(*Buf), I->Range.Start);
    Ok &= load(Id, Key);
  }
  return Ok;
}

/// Loads buffer \p Buffer, whose real path is \p Key: its imports first, so
/// P.Files ends up in dependency order.
bool Loader::load(unsigned Buffer, const std::string &Key) {
  std::unique_ptr<FileAST> F = parseBuffer(Buffer, Diags, Opts.Limits);
  if (!F)
    return false;
  Stack.push_back(Key);
  llvm::StringRef Name =
      Diags.sourceMgr().getMemoryBuffer(Buffer)->getBufferIdentifier();
  bool Ok = importAll(*F, llvm::sys::path::parent_path(Name));
  Stack.pop_back();
  Done.insert(Key);
  P.Files.push_back(std::move(F));
  return Ok;
}

} // namespace

/// Line ends as the rest of shardc counts them: llvm::SourceMgr and the
/// lexer end a line at '\n' only, so a file with classic Mac line ends (a
/// lone '\r') was all line 1. Each lone '\r' becomes '\n', which moves no
/// offset; '\r\n' stays. A file past \p MaxBytes is left for the parser
/// to refuse, uncopied. A UTF-8 byte-order mark, which some editors write,
/// is dropped, so line 1's columns count as the editor shows them.
std::unique_ptr<llvm::MemoryBuffer>
shardc::normalizeSource(std::unique_ptr<llvm::MemoryBuffer> Buf,
                        uint64_t MaxBytes) {
  llvm::StringRef Text = Buf->getBuffer();
  bool Bom = Text.startswith("\xEF\xBB\xBF");
  if (Text.size() > MaxBytes ||
      (!Bom && Text.find('\r') == llvm::StringRef::npos))
    return Buf;
  std::string Data = Text.drop_front(Bom ? 3 : 0).str();
  for (size_t I = Data.find('\r'); I != std::string::npos;
       I = Data.find('\r', I + 1))
    if (I + 1 == Data.size() || Data[I + 1] != '\n')
      Data[I] = '\n';
  return llvm::MemoryBuffer::getMemBufferCopy(Data, Buf->getBufferIdentifier());
}

/// Reads the file as readSourceFile says, before its line ends are
/// normalized.
static llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
readRawSourceFile(llvm::StringRef Path, uint64_t MaxBytes) {
  llvm::sys::fs::file_status Status;
  if (Path != "-") {
    if (std::error_code EC = llvm::sys::fs::status(Path, Status))
      return EC;
    if (Status.type() != llvm::sys::fs::file_type::character_file &&
        Status.type() != llvm::sys::fs::file_type::fifo_file)
      return llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  }
  llvm::sys::fs::file_t File = llvm::sys::fs::getStdinHandle();
  if (Path != "-") {
    llvm::Expected<llvm::sys::fs::file_t> Opened =
        llvm::sys::fs::openNativeFileForRead(Path);
    if (!Opened)
      return llvm::errorToErrorCode(Opened.takeError());
    File = *Opened;
  }
  std::string Data;
  std::error_code EC;
  char Chunk[1 << 16];
  while (true) {
    llvm::Expected<size_t> N = llvm::sys::fs::readNativeFile(File, Chunk);
    if (!N) {
      EC = llvm::errorToErrorCode(N.takeError());
      break;
    }
    if (*N == 0)
      break;
    Data.append(Chunk, *N);
    if (Data.size() > MaxBytes) {
      EC = std::make_error_code(std::errc::file_too_large);
      break;
    }
  }
  if (Path != "-")
    llvm::sys::fs::closeFile(File);
  if (EC)
    return EC;
  return llvm::MemoryBuffer::getMemBufferCopy(Data,
                                              Path == "-" ? "<stdin>" : Path);
}

llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
shardc::readSourceFile(llvm::StringRef Path, uint64_t MaxBytes) {
  auto Buf = readRawSourceFile(Path, MaxBytes);
  if (!Buf)
    return Buf;
  return normalizeSource(std::move(*Buf), MaxBytes);
}

bool shardc::loadProgram(unsigned MainBuffer, DiagnosticEngine &Diags,
                         const CompileOptions &Opts, Program &P) {
  llvm::StringRef Name =
      Diags.sourceMgr().getMemoryBuffer(MainBuffer)->getBufferIdentifier();
  std::string Key = Name == "<stdin>" ? Name.str() : realPath(Name);
  P.StdlibDir = Opts.StdlibDir;
  return Loader(Diags, Opts, P).load(MainBuffer, Key);
}
