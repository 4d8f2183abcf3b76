//===- SemaSearch.cpp - Checking what a layout search ranges over ---------===//
//
// A file is a search when its mesh has a `?` size, a train knob is written
// `in SET` or `= ?`, or it has a `search { }` block. Everything a search
// writes is checked here, once, and recorded in Program::Search; the
// program itself is checked as one compile: every searched axis at size 1,
// every searched knob at its default, and a `per step` dim at G / m (m the
// written microbatches, else 1). The search rebinds those per candidate
// with compile(IR, Layout), so nothing else may depend on them.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "ir/Training.h"
#include "support/Format.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace shardc;

namespace {

/// Sets larger than this are a mistake (`1..100000000`), not a search.
constexpr int64_t MaxSetValues = 4096;

const char *const KnobNames[NumSearchKnobs] = {
    "microbatches", "microbatch_size", "zero",
    "recompute",    "schedule",        "chunks"};

std::optional<SearchKnob> knobNamed(llvm::StringRef Name) {
  for (unsigned K = 0; K < NumSearchKnobs; ++K)
    if (Name == KnobNames[K])
      return SearchKnob(K);
  return std::nullopt;
}

/// Why a train setting that is not a knob cannot be searched.
std::string unsearchableReason(llvm::StringRef Name) {
  static const llvm::StringRef Computes[] = {"optimizer", "grad", "master",
                                             "state",     "fp8",  "grad_clip"};
  if (llvm::is_contained(Computes, Name))
    return "it changes what the step computes";
  return "it is a modelling choice, not part of a layout; only microbatches, "
         "zero, recompute, schedule and chunks are searched";
}

std::string formSpelling(const Property &P) {
  switch (P.Form) {
  case PropForm::Any:
    return "= ?";
  case PropForm::In:
    return "in";
  case PropForm::AtMost:
    return "<=";
  case PropForm::Assign:
  case PropForm::List: // only `serve` parses it
    break;
  }
  return "=";
}

// The word choices of the searched knobs, indexed by their enum values.
const std::vector<std::string> RecomputeWords = {"none", "selective", "full",
                                                 "attention"};
const std::vector<std::string> ScheduleWords = {"gpipe", "1f1b", "interleaved"};

} // namespace

bool Sema::checkInWord(const Ident &In) {
  if (In.Name == "in")
    return true;
  Diags.report(In.Range, diag::ExpectedIn, In.Name);
  return false;
}

std::optional<std::vector<int64_t>>
Sema::evalSet(const SetAST &S,
              llvm::function_ref<std::optional<int64_t>(const Expr &)> One,
              llvm::function_ref<std::string(int64_t)> Spell) {
  std::vector<int64_t> Out;
  if (S.IsRange) {
    std::optional<int64_t> Lo = One(*S.Items[0]), Hi = One(*S.Items[1]);
    if (!Lo || !Hi)
      return std::nullopt;
    if (*Lo > *Hi) {
      Diags.report(S.Range, diag::SetRangeEmpty, *Lo, *Hi);
      return std::nullopt;
    }
    if (*Hi - *Lo >= MaxSetValues) {
      Diags.report(S.Range, diag::SetTooLarge, *Hi - *Lo + 1, MaxSetValues);
      return std::nullopt;
    }
    for (int64_t V = *Lo; V <= *Hi; ++V)
      Out.push_back(V);
    return Out;
  }
  bool Ok = true;
  for (const ExprPtr &E : S.Items) {
    std::optional<int64_t> V = One(*E);
    if (!V) {
      Ok = false;
      continue;
    }
    // A value listed twice is a slip (a typo for another value), not a
    // wish: it is an error rather than merged.
    if (llvm::is_contained(Out, *V)) {
      Diags.report(E->Range, diag::SetValueRepeated, Spell(*V));
      Ok = false;
      continue;
    }
    Out.push_back(*V);
  }
  if (!Ok)
    return std::nullopt;
  llvm::sort(Out);
  return Out;
}

/// One value of knob \p K's set, in its canonical numbering.
std::optional<int64_t> Sema::knobValue(SearchKnob K, const std::string &Name,
                                       const Expr &E) {
  switch (K) {
  case SearchKnob::Recompute:
  case SearchKnob::Schedule: {
    std::optional<PropValue> V = evalValue(Name, E, PropKind::Word);
    if (!V)
      return std::nullopt;
    std::optional<unsigned> I = choose(
        Name, *V, K == SearchKnob::Recompute ? RecomputeWords : ScheduleWords);
    return I ? std::optional<int64_t>(*I) : std::nullopt;
  }
  case SearchKnob::Zero: {
    std::optional<int64_t> Z = evalWhole(E, Name, 0);
    if (Z && *Z > 3) {
      Diags.report(E.Range, diag::ZeroStage, *Z);
      return std::nullopt;
    }
    return Z;
  }
  default:
    return evalWhole(E, Name, 1);
  }
}

void Sema::searchedKnob(const Property &P, SearchKnob K, bool InSearchBlock) {
  const std::string &Name = P.Name.Name;
  if (P.Form == PropForm::AtMost) {
    Diags.report(P.Name.Range, diag::FormNotAllowed, Name,
                 "<=", "; search it with 'in SET' or '= ?'");
    return;
  }
  SearchedKnob Knob;
  Knob.Knob = K;
  Knob.At = Diags.location(P.Name.Range.Start);
  Knob.PropRange = P.Range;
  Knob.InSearchBlock = InSearchBlock;
  if (P.Form == PropForm::In) {
    if (!checkInWord(P.InWord))
      return;
    auto Spell = [&](int64_t V) {
      if (K == SearchKnob::Recompute)
        return RecomputeWords[V];
      if (K == SearchKnob::Schedule)
        return ScheduleWords[V];
      return std::to_string(V);
    };
    Knob.Values = evalSet(
        *P.Set, [&](const Expr &E) { return knobValue(K, Name, E); }, Spell);
    if (!Knob.Values)
      return;
  }
  // It needs the data-parallel degree of each layout to become a number
  // of microbatches, which the search does not derive yet.
  if (K == SearchKnob::MicrobatchSize)
    Diags.report(P.Name.Range, diag::MicrobatchSizeNotSupported);
  for (const SearchedKnob &Other : Search.Knobs)
    if (Other.Knob == K) {
      Diags.report(P.Name.Range, diag::KnobSearchedTwice, Name);
      Diags.report(Other.PropRange, diag::FirstSetHere, Name);
      return;
    }
  auto It = llvm::find_if(Search.Knobs, [&](const SearchedKnob &O) {
    return unsigned(O.Knob) > unsigned(K);
  });
  Search.Knobs.insert(It, std::move(Knob));
}

void Sema::searchForms(const std::vector<Property> &Ps, bool InSearchBlock) {
  // checkProps reports a plain property set twice; here one written twice
  // when either is searched.
  llvm::StringMap<const Property *> Seen;
  for (const Property &P : Ps) {
    auto [First, New] = Seen.try_emplace(P.Name.Name, &P);
    if (!New && (P.Form != PropForm::Assign ||
                 First->second->Form != PropForm::Assign)) {
      Diags.report(P.Name.Range, diag::DuplicateProperty, P.Name.Name);
      Diags.report(First->second->Name.Range, diag::FirstSetHere, P.Name.Name);
      continue;
    }
    const std::string &Name = P.Name.Name;
    std::optional<SearchKnob> K = knobNamed(Name);
    if (InSearchBlock && Name == "chips")
      continue; // searchChips
    if (P.Form == PropForm::Assign) {
      // A knob fixed in `search` would be a train setting out of place.
      if (InSearchBlock && (K || findSchema(PropOwner::Train, Name)))
        Diags.report(P.Name.Range, diag::FormNotAllowed, Name, "=",
                     " in 'search'; set it in 'train', or search it with "
                     "'in SET' or '= ?'");
      continue;
    }
    if (K) {
      searchedKnob(P, *K, InSearchBlock);
    } else if (findSchema(PropOwner::Train, Name)) {
      Diags.report(P.Name.Range, diag::NotSearchable, Name,
                   unsearchableReason(Name));
    } else if (InSearchBlock && findSchema(PropOwner::Search, Name)) {
      Diags.report(P.Name.Range, diag::FormNotAllowed, Name, formSpelling(P),
                   "; write '" + Name + " = VALUE'");
    } else {
      std::vector<std::string> Names = schemaNames(PropOwner::Train);
      Names.push_back("microbatch_size");
      if (InSearchBlock)
        llvm::append_range(Names, schemaNames(PropOwner::Search));
      llvm::StringRef What = InSearchBlock ? "search block" : "train block";
      if (auto Best = closestNameOrAbbreviation(Name, Names))
        Diags.report(P.Name.Range, diag::UnknownPropertySuggest, Name, What,
                     *Best);
      else
        Diags.report(P.Name.Range, diag::UnknownProperty, Name, What);
    }
  }
}

void Sema::searchBlock(const SearchDecl &D) {
  if (!InMainFile) {
    Diags.report(D.Range.Start, diag::SearchInImport);
    return;
  }
  if (SearchBlock) {
    Diags.report(D.Range.Start, diag::DuplicateSearch);
    Diags.report(SearchBlock->Range.Start, diag::FirstSearchHere);
    return;
  }
  SearchBlock = &D;
  Search.BlockRange = D.Range;
  for (const Property &P : D.Props)
    Search.PropertyAt.push_back(
        {P.Name.Name, Diags.location(P.Name.Range.Start)});
  PropertySet Props;
  checkProps(D.Props, PropOwner::Search, "search block", Props);
  searchForms(D.Props, /*InSearchBlock=*/true);
  for (const Property &P : D.Props)
    if (P.Name.Name == "chips")
      searchChips(P);
  searchValues(Props, D);
}

/// `chips = N`, `chips <= N` or `chips in SET`.
void Sema::searchChips(const Property &P) {
  ChipsRange = P.Range;
  if (P.Form == PropForm::Any) {
    Diags.report(P.Name.Range, diag::FormNotAllowed, "chips", "= ?",
                 "; write 'chips = N', 'chips <= N' or 'chips in SET'");
    return;
  }
  if (P.Form == PropForm::In) {
    if (!checkInWord(P.InWord))
      return;
    auto Values = evalSet(
        *P.Set, [&](const Expr &E) { return evalWhole(E, "chips", 1); },
        [](int64_t V) { return std::to_string(V); });
    if (Values) {
      Search.ChipsRule = SearchChipsRule::InSet;
      Search.Chips = *Values;
    }
    return;
  }
  // `= N` was checked by checkProps; `<= N` is checked here.
  if (std::optional<int64_t> N = evalWhole(*P.Value, "chips", 1)) {
    Search.ChipsRule = P.Form == PropForm::AtMost ? SearchChipsRule::AtMost
                                                  : SearchChipsRule::Equal;
    Search.Chips = {*N};
  }
}

void Sema::searchValues(const PropertySet &Props, const SearchDecl &D) {
  auto Word =
      [&](PropId Id,
          llvm::ArrayRef<std::string> Choices) -> std::optional<unsigned> {
    if (!Props.has(Id))
      return std::nullopt;
    const PropValue &V = Props.get(Id);
    for (const Property &P : D.Props)
      if (P.Form == PropForm::Assign && P.Value &&
          P.Value->Range.Start == V.Range.Start)
        return choose(P, V, Choices);
    return std::nullopt;
  };
  if (auto I = Word(PropId::Search_order, {"fixed", "free"}))
    Search.FreeOrder = *I == 1;
  if (auto I = Word(PropId::Search_minimize, {"step_time", "cost", "memory"}))
    Search.Minimize = SearchObjective(*I);
  if (auto I = Word(PropId::Search_pareto, {"chips", "memory"}))
    Search.Pareto = SearchPareto(*I + 1);
  if (Props.has(PropId::Search_max_memory)) {
    Search.MaxMemory = Props.get(PropId::Search_max_memory).Number;
    MaxMemoryRange = Props.get(PropId::Search_max_memory).Range;
  }
  if (Props.has(PropId::Search_min_mfu))
    Search.MinMfu = Props.get(PropId::Search_min_mfu).Number;
  // A limit of no time is no search: both must be positive.
  for (PropId Id : {PropId::Search_max_step_time, PropId::Search_time_limit}) {
    if (!Props.has(Id))
      continue;
    const PropValue &V = Props.get(Id);
    if (V.Number <= 0) {
      Diags.report(V.Range, diag::ExpectedPositive,
                   Id == PropId::Search_time_limit ? "time_limit"
                                                   : "max_step_time",
                   "0 s");
      continue;
    }
    (Id == PropId::Search_time_limit ? Search.TimeLimit : Search.MaxStepTime) =
        V.Number;
  }
  if (Props.has(PropId::Search_top))
    Search.Top = unsigned(std::min<int64_t>(Props.get(PropId::Search_top).Whole,
                                            std::numeric_limits<int>::max()));
  if (Props.has(PropId::Search_max_candidates))
    Search.MaxCandidates = Props.get(PropId::Search_max_candidates).Whole;
  MinimizeMemory = Search.Minimize == SearchObjective::Memory;
}

/// The searched axes of mesh \p D (checked at size 1 in \p M); only the
/// program's mesh may have them, which finishSearch checks.
void Sema::searchedAxes(const MeshDecl &D, const MeshSpec &M) {
  for (unsigned I = 0; I < D.Axes.size() && I < M.Axes.size(); ++I) {
    const MeshAxisAST &A = D.Axes[I];
    if (!A.searched())
      continue;
    SearchedAxis S;
    S.Axis = I;
    S.At = Diags.location(A.SizeRange.Start);
    S.SizeRange = A.SizeRange;
    if (A.Set) {
      if (!checkInWord(A.InWord))
        continue;
      S.Sizes = evalSet(
          *A.Set,
          [&](const Expr &E) { return evalWhole(E, "mesh axis size", 1); },
          [](int64_t V) { return std::to_string(V); });
      if (!S.Sizes)
        continue;
    }
    PendingAxes.push_back({M.Name, std::move(S)});
  }
}

/// `dim B = G per step;` (\p G its size when valid).
void Sema::perStep(const Binding &B, DimId Dim, std::optional<int64_t> G) {
  if (B.PerWord.Name != "per" || B.StepWord.Name != "step") {
    Diags.report({B.PerWord.Range.Start, B.StepWord.Range.End},
                 diag::ExpectedPerStep, B.PerWord.Name, B.StepWord.Name);
    return;
  }
  if (Search.PerStep) {
    Diags.report(B.Name.Range, diag::DuplicatePerStep, B.Name.Name);
    Diags.report(PerStepAt, diag::PerStepHere, Search.PerStep->Name);
    return;
  }
  if (!G)
    return;
  Search.PerStep =
      shardc::PerStepDim{B.Name.Name, *G, Diags.location(B.Name.Range.Start)};
  PerStepDimId = Dim;
  PerStepAt = B.Name.Range;
}

void Sema::bindPerStep() {
  if (!Search.PerStep)
    return;
  if (!TrainBlock) {
    Diags.report(PerStepAt, diag::SearchNeedsTrain, "a 'per step' dim");
    return;
  }
  // With `microbatches = m` written the dim is G / m, number for number as
  // `dim B = G/m;`; searched or unwritten, m = 1 here and the search
  // rebinds it.
  int64_t G = Search.PerStep->Global, M = 1;
  if (Config.Train && MicrobatchesRange.isValid())
    M = Config.Train->Microbatches;
  if (G % M) {
    Diags.report(MicrobatchesRange, diag::PerStepNotDivisible, M,
                 Search.PerStep->Name, G);
    return;
  }
  if (Symbol *S = lookup(Search.PerStep->Name); S && S->Kind == SymKind::Dim)
    S->Value = Quantity::ofInt(G / M);
}

/// What the searched knobs and the `search` block need of the rest of the
/// file: a `train` block, and a `per step` dim for searched microbatches.
void Sema::checkSearchNeeds() {
  for (const SearchedKnob &K : Search.Knobs) {
    if (!TrainBlock) {
      Diags.report(K.PropRange, diag::SearchNeedsTrain,
                   std::string("searching '") + KnobNames[unsigned(K.Knob)] +
                       "'");
      continue;
    }
    if (K.Knob == SearchKnob::Microbatches && !Search.PerStep)
      Diags.report(K.PropRange, diag::MicrobatchesNeedPerStep);
    // Set in `train` and searched in `search`: which one holds would be
    // silent.
    const char *Name = KnobNames[unsigned(K.Knob)];
    if (K.InSearchBlock)
      for (const Property &P : TrainBlock->Props)
        if (P.Name.Name == Name && P.Form == PropForm::Assign) {
          Diags.report(K.PropRange, diag::DuplicateProperty, Name);
          Diags.report(P.Name.Range, diag::FirstSetHere, Name);
        }
  }
  if (SearchBlock && !TrainBlock) {
    for (const Property &P : SearchBlock->Props)
      if ((P.Name.Name == "minimize" && MinimizeMemory) ||
          P.Name.Name == "max_memory")
        Diags.report(P.Range, diag::SearchNeedsTrain,
                     P.Name.Name == "minimize" ? "'minimize = memory'"
                                               : "'max_memory'");
  }
}

void Sema::finishSearch() {
  const MeshSpec *Program = MeshChosen ? Mesh : nullptr;
  bool Searched = SearchBlock || !Search.Knobs.empty();
  for (auto &[MeshName, Axis] : PendingAxes) {
    if (Program && MeshName == Program->Name) {
      Search.Axes.push_back(Axis);
      Searched = true;
    } else if (Program) {
      Diags.report(Axis.SizeRange, diag::SearchedMeshNotProgram, MeshName,
                   Program->Name);
    }
  }
  checkSearchNeeds();
  if (Program && Program->Cluster) {
    int64_t Cluster = Program->Cluster->numChips();
    if (Search.Chips.empty())
      Search.Chips = {Cluster};
    else if (Search.Chips.back() > Cluster)
      Diags.report(ChipsRange, diag::SearchChipsOverCluster,
                   Search.Chips.back(), Program->Cluster->Name, Cluster);
    double Hbm = Program->Cluster->Chip.HbmBytes;
    if (Search.MaxMemory && *Search.MaxMemory > Hbm)
      Diags.report(MaxMemoryRange, diag::MaxMemoryOverHbm,
                   formatAmount(*Search.MaxMemory, "B"),
                   formatAmount(Hbm, "B"));
  }
  if (!Searched || Diags.hasErrors())
    return;
  if (TrainBlock)
    Search.TrainEnd =
        llvm::SMLoc::getFromPointer(TrainBlock->Range.End.getPointer() - 1);
  // The `search` block, else the program's mesh declaration.
  llvm::SMLoc MeshAt =
      Program ? MeshDeclAt.lookup(Program->Name) : llvm::SMLoc();
  Search.At = SearchBlock        ? Diags.location(SearchBlock->Range.Start)
              : MeshAt.isValid() ? Diags.location(MeshAt)
                                 : Search.Knobs.front().At;
  P.Search = std::move(Search);
}

/// The per-step dim must be the global batch's: the first dim of the
/// value the step counts it on. Another (a sequence's length, say) would
/// make the microbatches split it, and the batch printed would be wrong.
void Sema::checkPerStepIsBatch() {
  if (!Search.PerStep || !PerStepDimId || !IR || !TrainBlock)
    return;
  const Value *V = batchCountedOn(*IR);
  if (!V || V->type().Dims.empty() || V->type().Dims[0].Id == *PerStepDimId)
    return;
  Diags.report(PerStepAt, diag::PerStepNotBatch, Search.PerStep->Name,
               V->name(), IR->names().Dims[V->type().Dims[0].Id]);
}
