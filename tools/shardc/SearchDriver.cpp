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
#include "search/Search.h"
#include "search/Space.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <fmt/format.h>
#include <map>

using namespace shardc;

namespace {

/// The declaration of mesh \p Name in the main file.
MeshDecl *meshDecl(Program &P, llvm::StringRef Name) {
  if (P.Files.empty())
    return nullptr;
  for (DeclPtr &D : P.Files.back()->Items)
    if (auto *M = llvm::dyn_cast<MeshDecl>(D.get()))
      if (M->Name.Name == Name)
        return M;
  return nullptr;
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

/// The largest domains, for a search over its budget.
std::string largestDomains(const Module &Checked, const SearchSpec &Spec) {
  std::vector<std::pair<size_t, std::string>> D;
  auto Dom = axisDomains(Checked, Spec);
  for (const SearchedAxis &A : Spec.Axes)
    D.push_back({Dom[A.Axis].size(),
                 fmt::format("{} ({} sizes)", Checked.names().Axes[A.Axis],
                             Dom[A.Axis].size())});
  for (const SearchedKnob &K : Spec.Knobs)
    if (K.Values)
      D.push_back({K.Values->size(),
                   fmt::format("{} ({} values)", knobName(K.Knob).str(),
                               K.Values->size())});
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
/// `search` block removed; all else byte for byte.
std::string rowFile(llvm::StringRef Text, const char *Base, MeshDecl &Mesh,
                    const SearchSpec &Spec,
                    const std::vector<std::string> &Axes, const Candidate &C) {
  struct Edit {
    size_t From, To;
    std::string With;
  };
  std::vector<Edit> Edits;
  auto Off = [&](llvm::SMLoc L) { return size_t(L.getPointer() - Base); };
  // The mesh's axes: between its '[' and the matching ']'.
  size_t Open = Text.find('[', Off(Mesh.Name.Range.Start));
  size_t Close = Text.find(']', Open);
  if (Open != llvm::StringRef::npos && Close != llvm::StringRef::npos) {
    std::string Ax = meshText(Axes, C);
    Edits.push_back({Open + 1, Close, Ax.substr(1, Ax.size() - 2)});
  }
  std::string Extra;
  for (unsigned K = 0; K != NumSearchKnobs; ++K) {
    if (!(C.KnobMask >> K & 1))
      continue;
    auto Kind = SearchKnob(K);
    if (Kind == SearchKnob::Chunks &&
        PipelineSchedule(C.Knobs[unsigned(SearchKnob::Schedule)]) !=
            PipelineSchedule::Interleaved)
      continue;
    std::string Set = fmt::format("{} = {};", knobName(Kind).str(),
                                  knobValueText(Kind, C.Knobs[K]));
    auto It =
        std::find_if(Spec.Knobs.begin(), Spec.Knobs.end(),
                     [&](const SearchedKnob &S) { return S.Knob == Kind; });
    if (It != Spec.Knobs.end() && !It->InSearchBlock && It->PropRange.isValid())
      Edits.push_back({Off(It->PropRange.Start), Off(It->PropRange.End), Set});
    else
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
  std::sort(Edits.begin(), Edits.end(),
            [](const Edit &A, const Edit &B) { return A.From > B.From; });
  std::string Out = Text.str();
  for (const Edit &E : Edits)
    Out.replace(E.From, E.To - E.From, E.With);
  return Out;
}

} // namespace

int shardc::searchAndEmit(unsigned Id, Program &P, DiagnosticEngine &Diags,
                          const DriverOptions &O, llvm::raw_ostream &OS,
                          JsonEntry *Json) {
  const SearchSpec &Spec = *P.Search;
  llvm::SourceMgr &SM = Diags.sourceMgr();
  uint64_t Space = spaceSize(*P.IR, Spec);
  if (Space > Spec.MaxCandidates) {
    Diags.report(Spec.At, diag::SearchTooLarge, Space, Spec.MaxCandidates,
                 largestDomains(*P.IR, Spec));
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
  SearchResult R = runSearch(
      Spec, [&](llvm::ArrayRef<unsigned> Order) { return Checked.get(Order); },
      SM, Opts);
  SearchContext X{&Spec, P.IR->names().Axes};
  if (R.Stats.Stopped)
    Diags.report(Spec.At, diag::SearchStopped,
                 fmt::format("{:g}", *Spec.TimeLimit), R.Candidates,
                 R.SpaceCandidates);
  if (R.Top.empty()) {
    std::vector<std::string> Why;
    for (const Rejection &Rj : R.Rejected)
      Why.push_back(fmt::format("{} {}", Rj.Count, Rj.Reason));
    Diags.report(Spec.At, diag::SearchNoneFeasible,
                 R.Candidates + R.LayoutsRejected,
                 fmt::format("{}", fmt::join(Why, ", ")));
    if (Json) {
      Json->Failed = true;
      Json->Search = [&](JsonWriter &J) { writeSearchJson(J, R, X); };
      printJsonEntry(*Json, OS);
      Json->Search = nullptr;
    } else if (O.Emit == EmitKind::Report) {
      printSearchText(R, X, OS);
    }
    return ExitInputErrors;
  }
  unsigned Row = O.Emit == EmitKind::Best ? O.Row : 1;
  if (Row < 1 || Row > R.Top.size()) {
    Diags.report(Spec.At, diag::SearchRowMissing, Row, uint64_t(R.Top.size()),
                 R.Top.size() == 1 ? "" : "s");
    return ExitInputErrors;
  }
  const Candidate &Best = R.Top[Row - 1].At;
  if (O.Emit == EmitKind::Best) {
    MeshDecl *Mesh = meshDecl(P, P.IR->mesh().Name);
    if (!Mesh)
      return ExitInternal;
    const llvm::MemoryBuffer *B = SM.getMemoryBuffer(Id);
    OS << rowFile(B->getBuffer(), B->getBufferStart(), *Mesh, Spec, X.Axes,
                  Best);
    return ExitSuccess;
  }
  if (!Json && O.Emit == EmitKind::Report && O.Format == OutputFormat::Text) {
    printSearchText(R, X, OS);
    return ExitSuccess;
  }
  // Row 1's report, in the format asked for: the row's compile, with the
  // program's diagnostics (its warnings) reported once more.
  const Module *M = Checked.get(Best.Order);
  if (!M)
    return ExitInternal;
  auto C = compile(*M, candidateLayout(*M, X.Axes, Spec, Best), Diags);
  if (!C) {
    driverError() << llvm::toString(C.takeError()) << "\n";
    return ExitInternal;
  }
  if (Json)
    Json->Search = [&](JsonWriter &J) { writeSearchJson(J, R, X); };
  emitCompiled(C->get(), Diags, O, OS, Json);
  if (Json)
    Json->Search = nullptr;
  return ExitSuccess;
}
