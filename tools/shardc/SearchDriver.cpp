//===- SearchDriver.cpp - Running a layout search from the command line ---===//
//
// A file that is a search (docs/search.md) comes here after it is checked:
// the budget is checked, the search runs (each order of the mesh's axes is
// the file checked again with the axes so written, so a row's file is the
// file the search compiled), and the rows, rejections and statistics are
// printed; --emit=best (--row=N) prints the row's file instead, and
// --format=json row 1's report with the `search` object beside it.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "diag/Diagnostic.h"
#include "frontend/Overrides.h"
#include "report/Report.h"
#include "report/SearchReport.h"
#include "report/Summary.h"
#include "search/Search.h"
#include "search/Space.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>

using namespace shardc;

namespace {

/// The declaration of mesh \p Name, in the main file or an import (the
/// checks free statements' syntax trees as they lower them: items may be
/// null).
MeshDecl *meshDecl(Program &P, llvm::StringRef Name) {
  for (auto &F : P.Files)
    for (DeclPtr &D : F->Items)
      if (auto *M = llvm::dyn_cast_or_null<MeshDecl>(D.get()))
        if (M->Name.Name == Name)
          return M;
  return nullptr;
}

/// The text between the mesh declaration's '[' and its matching ']' in
/// \p Text, from \p From (the mesh's name), skipping comments; none when
/// not found.
std::optional<std::pair<size_t, size_t>> meshBrackets(llvm::StringRef Text,
                                                      size_t From) {
  size_t Open = llvm::StringRef::npos;
  for (size_t I = From; I < Text.size(); ++I) {
    if (Text.substr(I).startswith("//")) {
      I = Text.find('\n', I);
      if (I == llvm::StringRef::npos)
        return std::nullopt;
      continue;
    }
    if (Text.substr(I).startswith("/*")) {
      I = Text.find("*/", I + 2);
      if (I == llvm::StringRef::npos)
        return std::nullopt;
      ++I;
      continue;
    }
    if (Text[I] == '[' && Open == llvm::StringRef::npos)
      Open = I;
    else if (Text[I] == ']' && Open != llvm::StringRef::npos)
      return std::make_pair(Open + 1, I);
  }
  return std::nullopt;
}

/// The checked program per order of the mesh's axes: the main file loaded
/// and checked again with its mesh's axes so written.
class Orders {
public:
  Orders(unsigned Id, Program &Main, DiagnosticEngine &Diags,
         const DriverOptions &O)
      : Id(Id), Main(Main), Diags(Diags), O(O) {}

  const Module *get(llvm::ArrayRef<unsigned> Order) {
    bool Identity = true;
    for (unsigned I = 0; I != Order.size(); ++I)
      Identity = Identity && Order[I] == I;
    if (Identity)
      return Main.IR.get();
    std::vector<unsigned> Key(Order.begin(), Order.end());
    auto &Slot = Checked[Key];
    if (!Slot)
      Slot = check(Key);
    return Slot && Slot->IR ? Slot->IR.get() : nullptr;
  }

private:
  std::unique_ptr<Program> check(const std::vector<unsigned> &Order) {
    auto P = std::make_unique<Program>();
    // The file checked without error once: a second check that fails is a
    // bug of ours, which the caller reports when it gets no module.
    DiagnosticEngine Quiet(Diags.sourceMgr());
    Quiet.setHandler([](const Diagnostic &) {});
    if (!loadProgram(Id, Quiet, O.Compile, *P) ||
        !applyOverrides(O.Edits, Quiet, *P))
      return nullptr;
    MeshDecl *M = meshDecl(*P, Main.IR->mesh().Name);
    if (!M || M->Axes.size() != Order.size())
      return nullptr;
    std::vector<MeshAxisAST> Axes;
    for (unsigned Pos : Order)
      Axes.push_back(std::move(M->Axes[Pos]));
    M->Axes = std::move(Axes);
    if (!checkProgram(Quiet, *P))
      return nullptr;
    return P;
  }

  unsigned Id;
  Program &Main;
  DiagnosticEngine &Diags;
  const DriverOptions &O;
  std::map<std::vector<unsigned>, std::unique_ptr<Program>> Checked;
};

/// The largest domains, for a search over its budget: the searched axes'
/// sizes, the orders, and each searched knob's values (`?`: every value
/// the rules allow).
std::string largestDomains(const Module &Checked, const SearchSpec &Spec) {
  std::vector<std::pair<size_t, std::string>> D;
  auto Dom = axisDomains(Checked, Spec);
  for (const SearchedAxis &A : Spec.Axes)
    D.push_back({Dom[A.Axis].size(),
                 fmt::format("{} ({} sizes)", Checked.names().Axes[A.Axis],
                             Dom[A.Axis].size())});
  if (Spec.FreeOrder) {
    size_t N = 1;
    for (size_t I = 2; I <= Dom.size(); ++I)
      N *= I;
    D.push_back({N, fmt::format("order ({} permutations)", N)});
  }
  for (const SearchedKnob &K : Spec.Knobs)
    if (size_t N = knobDomain(Spec, K).size())
      D.push_back(
          {N, fmt::format("{} ({} values)", knobName(K.Knob).str(), N)});
  std::stable_sort(D.begin(), D.end(), [](const auto &A, const auto &B) {
    return A.first > B.first;
  });
  std::vector<std::string> Out;
  for (size_t I = 0; I != std::min<size_t>(D.size(), 3); ++I)
    Out.push_back(D[I].second);
  return fmt::format("{}", fmt::join(Out, ", "));
}

/// The main file with the row's layout written in: the mesh's axes in its
/// order and sizes, each searched knob as `NAME = VALUE;` in `train`, the
/// `search` block removed, the -D values written where they belong
/// (\p Overrides); all else byte for byte.
std::string rowFile(llvm::StringRef Text, const char *Base,
                    const MeshDecl &Mesh, const SearchSpec &Spec,
                    const std::vector<std::string> &Axes, const Candidate &C,
                    llvm::ArrayRef<Program::TextEdit> Overrides) {
  struct Edit {
    size_t From, To;
    std::string With;
  };
  std::vector<Edit> Edits;
  // Every edit is of the main file's text: a range elsewhere (a --mesh or
  // -D value's, in the command line's buffer) is left out.
  auto Off = [&](llvm::SMLoc L) {
    const char *P = L.getPointer();
    return P >= Base && P <= Base + Text.size() ? size_t(P - Base) : size_t(-1);
  };
  // The mesh's axes: what its brackets hold in the file (a --mesh size
  // lives in the command line's buffer, so the syntax tree's ranges would
  // not do), every size written.
  if (auto In = meshBrackets(Text, Off(Mesh.Name.Range.Start))) {
    std::string Ax = meshText(Axes, C);
    Edits.push_back({In->first, In->second, Ax.substr(1, Ax.size() - 2)});
  }
  for (const Program::TextEdit &E : Overrides)
    Edits.push_back({Off(E.Range.Start), Off(E.Range.End), E.Text});
  std::string Extra;
  for (unsigned K = 0; K != NumSearchKnobs; ++K) {
    if (!(C.KnobMask >> K & 1))
      continue;
    auto Kind = SearchKnob(K);
    auto It =
        std::find_if(Spec.Knobs.begin(), Spec.Knobs.end(),
                     [&](const SearchedKnob &S) { return S.Knob == Kind; });
    bool InTrain =
        It != Spec.Knobs.end() && !It->InSearchBlock && It->PropRange.isValid();
    // Chunks beside a schedule that is not interleaved mean nothing: a
    // searched `chunks` written in train goes, none is added.
    std::string Set = knobShown(C, Kind)
                          ? fmt::format("{} = {};", knobName(Kind).str(),
                                        knobValueText(Kind, C.Knobs[K]))
                          : "";
    if (InTrain)
      Edits.push_back({Off(It->PropRange.Start), Off(It->PropRange.End), Set});
    else if (!Set.empty())
      Extra += Set + " ";
  }
  if (!Extra.empty() && Spec.TrainEnd.isValid())
    Edits.push_back({Off(Spec.TrainEnd), Off(Spec.TrainEnd), Extra});
  if (Spec.BlockRange.isValid()) {
    size_t To = Off(Spec.BlockRange.End);
    if (To < Text.size() && Text[To] == '\n')
      ++To;
    Edits.push_back({Off(Spec.BlockRange.Start), To, ""});
  }
  llvm::erase_if(Edits, [&](const Edit &E) {
    return E.From > E.To || E.To > Text.size();
  });
  std::stable_sort(
      Edits.begin(), Edits.end(),
      [](const Edit &A, const Edit &B) { return A.From > B.From; });
  std::string Out = Text.str();
  for (const Edit &E : Edits)
    Out.replace(E.From, E.To - E.From, E.With);
  return Out;
}

} // namespace

/// The spec the search runs: the file's, with `chips` defaulting to the
/// fixed mesh's count when no axis is searched (a search of knobs alone,
/// on the mesh as written), not the cluster's.
static SearchSpec effectiveSpec(const Program &P) {
  SearchSpec Spec = *P.Search;
  bool ChipsWritten = llvm::any_of(
      Spec.PropertyAt, [](const auto &KV) { return KV.first == "chips"; });
  if (Spec.Axes.empty() && !ChipsWritten) {
    Spec.ChipsRule = SearchChipsRule::Equal;
    Spec.Chips = {P.IR->mesh().numChips()};
  }
  return Spec;
}

/// "12 StepOverHbm, 31 PipelineIndivisible (layouts)".
static std::string reasonsText(const SearchResult &R) {
  std::vector<std::string> Why;
  for (const Rejection &Rj : R.Rejected)
    Why.push_back(Rj.Level == SearchLevel::Layout
                      ? fmt::format("{} {} ({} layout{})", Rj.Candidates,
                                    Rj.Reason, Rj.Count,
                                    Rj.Count == 1 ? "" : "s")
                      : fmt::format("{} {}", Rj.Count, Rj.Reason));
  if (R.Layouts == 0)
    Why.push_back("no layout of the mesh uses the chip counts 'chips' allows");
  return fmt::format("{}", fmt::join(Why, ", "));
}

int shardc::searchAndEmit(unsigned Id, Program &P, DiagnosticEngine &Diags,
                          const DriverOptions &O, llvm::raw_ostream &OS,
                          JsonEntry *Json, SummaryRow *Summary) {
  const SearchSpec Spec = effectiveSpec(P);
  llvm::SourceMgr &SM = Diags.sourceMgr();
  SearchContext X{&Spec, P.IR->names().Axes};
  SearchResult R;
  R.SpaceCandidates = spaceSize(*P.IR, Spec);
  // The entry of a search that printed no report: status error, its
  // diagnostics and `search` (the space alone when over budget).
  auto FailedJson = [&] {
    Json->Failed = true;
    Json->Search = [&](JsonWriter &J) { writeSearchJson(J, R, X); };
    printJsonEntry(*Json, OS);
    Json->Search = nullptr;
  };
  if (R.SpaceCandidates > Spec.MaxCandidates) {
    Diags.report(Spec.At, diag::SearchTooLarge, R.SpaceCandidates,
                 Spec.MaxCandidates, largestDomains(*P.IR, Spec));
    if (Json)
      FailedJson();
    return ExitInputErrors;
  }
  Orders Checked(Id, P, Diags, O);
  SearchOptions Opts;
  Opts.Threads = O.Jobs;
  if (O.Progress)
    Opts.Progress = [](uint64_t Decided, uint64_t Total, double Seconds,
                       bool Done) {
      double Rate = Seconds > 0 ? double(Decided) / Seconds : 0;
      double Left =
          Rate > 0 ? double(Total - std::min(Total, Decided)) / Rate : 0;
      llvm::errs() << fmt::format(
          "\rsearch: {} of {} candidates decided, {:.0f}/s, {:.0f} s left   ",
          Decided, Total, Rate, Left);
      if (Done)
        llvm::errs() << "\n";
    };
  R = runSearch(
      Spec, [&](llvm::ArrayRef<unsigned> Order) { return Checked.get(Order); },
      SM, Opts);
  if (R.Stats.Stopped)
    Diags.report(Spec.At, diag::SearchStopped,
                 fmt::format("{:g}", *Spec.TimeLimit), R.Decided,
                 R.SpaceCandidates);
  if (R.Top.empty()) {
    Diags.report(Spec.At, diag::SearchNoneFeasible, R.Decided, reasonsText(R));
    if (Json)
      FailedJson();
    else if (O.Emit == EmitKind::Report)
      printSearchText(R, X, OS);
    return ExitInputErrors;
  }
  // --row names the row --emit=best prints, and the one whose report,
  // IR or trace the other formats print (row 1 by default).
  if (O.Row < 1 || O.Row > R.Top.size()) {
    Diags.report(Spec.At, diag::SearchRowMissing, O.Row, uint64_t(R.Top.size()),
                 R.Top.size() == 1 ? "" : "s");
    return ExitInputErrors;
  }
  const Candidate &Row = R.Top[O.Row - 1].At;
  if (O.Emit == EmitKind::Best) {
    MeshDecl *Mesh = meshDecl(P, P.IR->mesh().Name);
    const llvm::MemoryBuffer *B = SM.getMemoryBuffer(Id);
    if (!Mesh)
      return ExitInternal;
    if (SM.FindBufferContainingLoc(Mesh->Name.Range.Start) != Id) {
      // The row's sizes belong in the mesh declaration, which is not in
      // this file: say so rather than print a file without them.
      driverError() << "--emit=best writes the row's layout into the mesh "
                       "declaration, but mesh '"
                    << Mesh->Name.Name << "' is declared in an imported "
                    << "file, not in " << B->getBufferIdentifier()
                    << ": declare the mesh in the main file\n";
      return ExitInputErrors;
    }
    OS << rowFile(B->getBuffer(), B->getBufferStart(), *Mesh, Spec, X.Axes, Row,
                  P.OverrideEdits);
    return ExitSuccess;
  }
  bool Table =
      !Json && O.Emit == EmitKind::Report && O.Format == OutputFormat::Text;
  if (Table)
    printSearchText(R, X, OS);
  if (Table && !Summary)
    return ExitSuccess;
  // The row's compile: its report in the format asked for (its warnings
  // reported once more), or its line of --summary.
  const Module *M = Checked.get(Row.Order);
  if (!M)
    return ExitInternal;
  DiagnosticEngine Quiet(SM);
  Quiet.setHandler([](const Diagnostic &) {});
  auto C = compile(*M, candidateLayout(*M, X.Axes, Spec, Row),
                   Table ? Quiet : Diags);
  if (!C) {
    driverError() << "internal error: " << llvm::toString(C.takeError())
                  << "\n";
    return ExitInternal;
  }
  if (Summary) {
    std::string Where = std::move(Summary->Where);
    *Summary = summaryRow(**C, false);
    Summary->Where = std::move(Where);
  }
  if (Table)
    return ExitSuccess;
  if (Json)
    Json->Search = [&](JsonWriter &J) { writeSearchJson(J, R, X); };
  emitCompiled(C->get(), Diags, O, OS, Json);
  if (Json)
    Json->Search = nullptr;
  return ExitSuccess;
}
