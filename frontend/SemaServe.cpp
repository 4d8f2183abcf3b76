//===- SemaServe.cpp - serve { }, phase dims, cache, append ---------------===//
//
// docs/inference.md's language. The `serve` block is read in phase one with
// the config; the phase dims (`dim B = batch, Q = new, S = context;`) are
// bound after it, for the check, to batch 1, new = the prompt and context =
// the capacity (the serve engine binds each instance's sizes, and checks
// their divisibility there: here a phase dim is never "not divisible"). A
// `cache` is an input marked resident; `append` writes rows into one.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "ir/ModelOps.h"
#include "llvm/ADT/StringExtras.h"

using namespace shardc;

namespace {
constexpr const char *PhaseNames[NumPhaseDims] = {"batch", "new", "context"};
std::string modeWord(ServeMode M) {
  static const char *Words[] = {"static", "interleaved", "continuous",
                                "disaggregated"};
  return Words[unsigned(M)];
}
} // namespace

bool Sema::isPhaseName(llvm::StringRef Name) const {
  return llvm::is_contained(PhaseNames, Name);
}

bool Sema::isPhaseDim(DimId D) const {
  for (const std::optional<DimId> &P : Serve.Dims)
    if (P && *P == D)
      return true;
  return false;
}

bool Sema::phaseDim(const Binding &B, DimId Dim) {
  unsigned K = 0;
  while (K < NumPhaseDims && B.Value->Text != PhaseNames[K])
    ++K;
  if (K == NumPhaseDims)
    return false;
  if (Serve.Dims[K]) {
    Diags.report(B.Name.Range, diag::DuplicatePhaseDim, B.Name.Name,
                 PhaseNames[K]);
    Diags.report(PhaseDimAt[K], diag::PhaseDimHere,
                 Info->Names.Dims[*Serve.Dims[K]], PhaseNames[K]);
    return true;
  }
  Serve.Dims[K] = Dim;
  PhaseDimAt[K] = B.Name.Range;
  return true;
}

void Sema::bindPhaseDims() {
  // Disaggregated: the decode pool is the program's mesh; a `config` mesh
  // beside it would leave one of them silently unused.
  if (DecodeMesh) {
    if (ConfigMesh && ConfigMesh != DecodeMesh)
      Diags.report(DecodeMeshAt, diag::ServeDecodeConfigMesh);
    else
      ConfigMesh = DecodeMesh;
  }
  for (unsigned K = 0; K < NumPhaseDims; ++K) {
    if (!Serve.Dims[K])
      continue;
    const std::string &Name = Info->Names.Dims[*Serve.Dims[K]];
    if (!ServeBlock) {
      Diags.report(PhaseDimAt[K], diag::PhaseDimNoServe, Name, PhaseNames[K]);
      continue;
    }
    int64_t Size = PhaseDim(K) == PhaseDim::Batch ? 1
                   : PhaseDim(K) == PhaseDim::New ? Serve.Prompt
                                                  : Serve.capacity();
    if (Symbol *S = lookup(Name); S && S->Kind == SymKind::Dim)
      S->Value = Quantity::ofInt(std::max<int64_t>(Size, 1));
  }
}

void Sema::serveBatch(const Property &P) {
  auto IsMax = [](const Expr &E) {
    return E.Kind == ExprKind::Name && E.Text == "max";
  };
  Serve.BatchAt = Diags.location(P.Name.Range.Start);
  std::vector<int64_t> Out;
  if (P.Form == PropForm::Assign) {
    if (IsMax(*P.Value)) {
      Serve.BatchMax = true;
      return;
    }
    if (std::optional<int64_t> N = evalWhole(*P.Value, "batch", 1))
      Serve.Batches = {*N};
    return;
  }
  // The grammar gives `serve` no other form.
  assert(P.Form == PropForm::List && P.Set && "a list or a range");
  const SetAST &S = *P.Set;
  if (S.IsRange) {
    std::optional<int64_t> Lo = evalWhole(*S.Items[0], "batch", 1);
    if (!Lo)
      return;
    bool ToMax = IsMax(*S.Items[1]);
    std::optional<int64_t> Hi = ToMax ? std::optional<int64_t>(INT64_MAX)
                                      : evalWhole(*S.Items[1], "batch", 1);
    if (!Hi)
      return;
    if (*Lo > *Hi) {
      Diags.report(S.Range, diag::ServeBatchRange, *Lo, *Hi);
      return;
    }
    // The range's ends and the powers of two between them; to `max`, the
    // engine adds the powers up to B_mem and B_mem itself.
    Serve.BatchRange = true;
    Out.push_back(*Lo);
    if (ToMax) {
      Serve.BatchMax = true;
      Serve.PowersFrom = *Lo;
    } else {
      for (int64_t B = 1; B < *Hi && B <= INT64_MAX / 2; B *= 2)
        if (B > *Lo)
          Out.push_back(B);
      Out.push_back(*Hi);
    }
  } else {
    for (const ExprPtr &E : S.Items) {
      if (IsMax(*E)) {
        Serve.BatchMax = true;
        continue;
      }
      std::optional<int64_t> N = evalWhole(*E, "batch", 1);
      if (!N)
        return;
      Out.push_back(*N);
    }
  }
  llvm::sort(Out);
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  Serve.Batches = std::move(Out);
}

/// `speculate { tokens = 4; accept = 0.8; draft = 0.1; }`: every property
/// required; `draft` a time per drafted token or a share of T_dec.
void Sema::speculate(const NestedBlockAST &B) {
  PropertySet Props;
  if (!checkProps(B.Props, PropOwner::Speculate, "speculate block", Props,
                  /*Block=*/nullptr, /*Skip=*/"draft"))
    return;
  ServeSpec::Speculation Sp;
  bool Ok = true;
  for (const char *Name : {"tokens", "accept", "draft"})
    if (!llvm::any_of(B.Props,
                      [&](const Property &P) { return P.Name.Name == Name; })) {
      Diags.report(B.Name.Range, diag::SpeculateMissing, Name);
      Ok = false;
    }
  for (const Property &P : B.Props) {
    const PropSchema *S = findSchema(PropOwner::Speculate, P.Name.Name);
    if (!S || !Props.has(S->Id))
      continue;
    const PropValue &V = Props.get(S->Id);
    if (S->Id == PropId::Speculate_tokens) {
      Sp.Tokens = V.Whole;
    } else if (S->Id == PropId::Speculate_accept) {
      Sp.Accept = V.Number;
    }
  }
  for (const Property &P : B.Props) {
    if (P.Name.Name == "draft") {
      std::optional<Quantity> Q = eval(*P.Value);
      if (!Q)
        continue;
      bool Time = Q->Dim == Dimension::seconds();
      if (!Time && !Q->Dim.isCount()) {
        Diags.report(P.Value->Range, diag::SpeculateDraft,
                     "quantity of " + Q->Dim.str());
        Ok = false;
      } else if (!(Q->value() >= 0 && Q->value() < 1e6)) {
        Diags.report(P.Value->Range, diag::SpeculateDraft,
                     "value out of range (0 to 10^6)");
        Ok = false;
      } else {
        Sp.DraftIsTime = Time;
        Sp.Draft = Q->value();
      }
    }
  }
  if (Ok)
    Serve.Speculate = Sp;
}

void Sema::serveBlock(const ServeDecl &D) {
  if (!InMainFile) {
    Diags.report(D.Range.Start, diag::ServeInImport);
    return;
  }
  if (ServeBlock) {
    Diags.report(D.Range.Start, diag::DuplicateServe);
    Diags.report(ServeBlock->Range.Start, diag::FirstServeHere);
    return;
  }
  ServeBlock = &D;
  Config.Serving = true;
  Serve.At = Diags.location(D.Range.Start);
  Serve.BatchAt = Serve.At;
  PropertySet Props;
  checkProps(D.Props, PropOwner::Serve, "serve block", Props,
             /*Block=*/nullptr, /*Skip=*/"batch");
  bool BatchSeen = false;
  for (const Property &P : D.Props) {
    if (P.Name.Name == "batch") {
      if (BatchSeen) {
        Diags.report(P.Name.Range, diag::DuplicateProperty, "batch");
        continue;
      }
      BatchSeen = true;
      serveBatch(P);
      continue;
    }
    if (P.Form == PropForm::List) {
      if (findSchema(PropOwner::Serve, P.Name.Name))
        Diags.report(P.Range, diag::ServeFormNotList, P.Name.Name);
      else
        Diags.report(P.Name.Range, diag::UnknownProperty, P.Name.Name,
                     "serve block");
      continue;
    }
    const PropSchema *S = findSchema(PropOwner::Serve, P.Name.Name);
    if (!S || !Props.has(S->Id))
      continue; // reported by checkProps
    const PropValue &V = Props.get(S->Id);
    switch (S->Id) {
    case PropId::Serve_prompt:
      Serve.Prompt = V.Whole;
      break;
    case PropId::Serve_output:
      if (V.Whole < 2)
        Diags.report(V.Range, diag::ServeCount, "output", 2, V.Whole);
      else
        Serve.Output = V.Whole;
      break;
    case PropId::Serve_mode:
      if (auto I = choose(
              P, V, {"static", "interleaved", "continuous", "disaggregated"})) {
        Serve.Mode = ServeMode(*I);
      }
      break;
    case PropId::Serve_context:
      if (auto I = choose(P, V, {"mean", "exact"}))
        Serve.ContextExact = *I == 1;
      break;
    case PropId::Serve_compute: {
      bool None = false;
      if (std::optional<DType> T = chooseDType(P, V, false, None))
        Serve.Compute = *T;
      break;
    }
    case PropId::Serve_replicas:
      Serve.Replicas = V.Whole;
      break;
    case PropId::Serve_hbm_usable:
      Serve.HbmUsable = V.Number;
      break;
    case PropId::Serve_max_batch:
      Serve.MaxBatch = V.Whole;
      break;
    case PropId::Serve_price:
      Serve.Price = V.Number;
      break;
    case PropId::Serve_chunk:
      Serve.Chunk = V.Whole;
      break;
    case PropId::Serve_prefill:
      if (V.Sym && V.Sym->Mesh) {
        PrefillPool = V.Sym->Mesh;
        Serve.PrefillAt = Diags.location(P.Value->Range.Start);
      }
      break;
    case PropId::Serve_decode:
      // The program's mesh (bindPhaseDims): its shardings are written for
      // the decode pool.
      DecodeMesh = P.Value.get();
      DecodeMeshAt = P.Value->Range;
      break;
    case PropId::Serve_link:
      LinkWord = V;
      break;
    case PropId::Serve_kv_fraction:
      if (Props.has(PropId::Serve_hbm_usable))
        Diags.report(P.Name.Range, diag::ServeKvFractionAndUsable);
      else
        Serve.KvFraction = V.Number;
      break;
    default:
      break;
    }
  }
  for (const NestedBlockAST &B : D.Blocks) {
    if (B.Name.Name != "speculate") {
      Diags.report(B.Name.Range, diag::ServeUnknownBlock, B.Name.Name);
      continue;
    }
    if (Serve.Speculate) {
      Diags.report(B.Name.Range, diag::DuplicateProperty, "speculate");
      continue;
    }
    speculate(B);
  }
  if (!BatchSeen)
    Serve.BatchMax = true;
  // The pools only where the mode reads them (elsewhere a warning below
  // says they have no effect, and they have none).
  if (Serve.Mode == ServeMode::Disaggregated && PrefillPool)
    Serve.PrefillMesh = *PrefillPool;
  if (Serve.Mode != ServeMode::Disaggregated)
    DecodeMesh = nullptr;
  // Properties the mode does not read.
  for (const Property &P : D.Props) {
    bool Pools = P.Name.Name == "prefill" || P.Name.Name == "decode" ||
                 P.Name.Name == "link";
    if ((P.Name.Name == "chunk" && Serve.Mode != ServeMode::Continuous) ||
        (Pools && Serve.Mode != ServeMode::Disaggregated))
      Diags.report(P.Name.Range, diag::ServeIgnored, P.Name.Name,
                   modeWord(Serve.Mode));
  }
  // Missing: not written at all (a value written wrong was reported).
  llvm::SMRange At(D.Range.Start, D.Range.Start);
  auto Written = [&](llvm::StringRef Name) {
    return llvm::any_of(D.Props,
                        [&](const Property &P) { return P.Name.Name == Name; });
  };
  if (!Written("prompt"))
    Diags.report(At, diag::ServeMissing, "prompt",
                 "the mean prompt tokens, 'prompt = 2048;'");
  if (!Written("output"))
    Diags.report(At, diag::ServeMissing, "output",
                 "the tokens each request generates, 'output = 256;'");
}

void Sema::cache(const CacheDecl &D) {
  if (!chooseMesh(D.Range))
    return;
  std::optional<ShardType> T = resolveType(D.Type, /*NeedDType=*/true);
  if (!ServeBlock) {
    Diags.report(D.Name.Range, diag::CacheNoServe, D.Name.Name);
    T.reset();
  }
  if (T && !T->Unreduced.empty()) {
    Diags.report(D.Type.Range, diag::ParamUnreduced, D.Name.Name);
    T.reset();
  }
  if (T) {
    unsigned Batch = 0, Context = 0;
    for (const TensorDim &Dm : T->Dims) {
      Batch += Serve.Dims[0] && Dm.Id == *Serve.Dims[0];
      Context += Serve.Dims[2] && Dm.Id == *Serve.Dims[2];
    }
    if (Batch != 1 || Context != 1) {
      auto Name = [&](unsigned K) {
        return Serve.Dims[K] ? "'" + Info->Names.Dims[*Serve.Dims[K]] + "'"
                             : std::string("a '") + PhaseNames[K] + "' dim";
      };
      Diags.report(D.Type.Range, diag::CachePhaseDims, D.Name.Name,
                   Name(0) + " and " + Name(2), dimListStr(*T, Info->Names));
      if (!Serve.Dims[0] || !Serve.Dims[2])
        Diags.report(D.Type.Range, diag::PhaseDimsHint);
      T.reset();
    }
  }
  Value *V = nullptr;
  if (T) {
    unsigned St = addStatement(D.Range, D.Name.Name, OpKind::Input);
    V = Builder
            ->create<InputOp>(Diags.location(D.Range.Start), St, {},
                              D.Name.Name, *T, /*Cache=*/true)
            ->result();
  }
  Symbol S{SymKind::Tensor, D.Name.Range, V == nullptr};
  S.Tensor = V;
  if (V)
    Bound.push_back({D.Name, V});
  declare(D.Name, S);
}

Op *Sema::append(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                 const ShardType &Out) {
  const Op *Def = Args[0]->def();
  auto *In = llvm::dyn_cast<InputOp>(Def);
  if (!(In && In->isCache()) && !llvm::isa<AppendOp>(Def)) {
    Diags.report(D.Args[0].Range, diag::AppendNotCache, D.Args[0].Name.Name);
    return nullptr;
  }
  if (!checkBuiltinOperand(D, 1, Args[1], /*Ids=*/false, "rows of a cache"))
    return nullptr;
  const ShardType &C = Args[0]->type(), &R = Args[1]->type();
  unsigned Pos = 0;
  while (Pos < C.Dims.size() &&
         !(Serve.Dims[2] && C.Dims[Pos].Id == *Serve.Dims[2]))
    ++Pos;
  // The rows: the cache's dims with the new tokens in the context's place.
  bool Ok =
      Serve.Dims[1] && Pos < C.Dims.size() && R.Dims.size() == C.Dims.size();
  for (unsigned I = 0; Ok && I < C.Dims.size(); ++I)
    Ok = I == Pos
             ? R.Dims[I].Id == *Serve.Dims[1]
             : R.Dims[I].Id == C.Dims[I].Id && R.Dims[I].Size == C.Dims[I].Size;
  if (!Ok) {
    std::string Want = "[";
    for (unsigned I = 0; I < C.Dims.size(); ++I)
      Want += (I ? ", " : "") + (I == Pos && Serve.Dims[1]
                                     ? Info->Names.Dims[*Serve.Dims[1]]
                                     : Info->Names.Dims[C.Dims[I].Id]);
    Want += "]";
    std::string NewName =
        Serve.Dims[1] ? Info->Names.Dims[*Serve.Dims[1]] : "new";
    std::string CtxName =
        Serve.Dims[2] ? Info->Names.Dims[*Serve.Dims[2]] : "context";
    Diags.report(D.Args[1].Range, diag::AppendRows, NewName, CtxName, Want,
                 dimListStr(R, Info->Names));
    if (!Serve.Dims[1] || !Serve.Dims[2])
      Diags.report(D.Args[1].Range, diag::PhaseDimsHint);
    return nullptr;
  }
  if (!(Out == C)) {
    Diags.report(D.OutType.Range, diag::AppendResult, typeStr(C), typeStr(Out));
    return nullptr;
  }
  unsigned St = addStatement(D.Range, D.Out.Name, OpKind::Append);
  return Builder->create<AppendOp>(Diags.location(D.Range.Start), St, Args,
                                   D.Out.Name, Out, Pos);
}

/// `mode = disaggregated`: both pools and the link, the pools' axes alike.
bool Sema::disaggregated() {
  llvm::SMRange At(ServeBlock->Range.Start, ServeBlock->Range.Start);
  bool Ok = true;
  for (const char *Name : {"prefill", "decode", "link"})
    if (!llvm::any_of(ServeBlock->Props,
                      [&](const Property &P) { return P.Name.Name == Name; })) {
      Diags.report(At, diag::ServeMissing, Name,
                   "disaggregated serving names its two pools' meshes and "
                   "the level the KV cache crosses");
      Ok = false;
    }
  if (!Ok || !Mesh || !Serve.PrefillMesh || !LinkWord)
    return false;
  // The program's axes, in order, on both pools (sizes free).
  const MeshSpec &Pre = *Serve.PrefillMesh;
  bool Same = Pre.Axes.size() == Mesh->Axes.size();
  for (size_t I = 0; Same && I < Pre.Axes.size(); ++I)
    Same = Pre.Axes[I].Name == Mesh->Axes[I].Name;
  if (!Same) {
    Diags.report(DecodeMeshAt, diag::ServePoolAxes, Pre.Name, Mesh->Name);
    return false;
  }
  // The KV transfer is priced on one cluster's levels.
  if (Pre.Cluster->Name != Mesh->Cluster->Name) {
    Diags.report(DecodeMeshAt, diag::ServePoolCluster, Pre.Name,
                 Pre.Cluster->Name, Mesh->Name, Mesh->Cluster->Name);
    return false;
  }
  std::vector<std::string> Levels;
  for (const LevelSpec &L : Mesh->Cluster->Levels)
    Levels.push_back(L.Name);
  auto It = llvm::find(Levels, LinkWord->Word);
  if (It == Levels.end()) {
    choose("link", *LinkWord, Levels);
    return false;
  }
  Serve.LinkLevel = unsigned(It - Levels.begin());
  Serve.LinkAt = Diags.location(LinkWord->Range.Start);
  return true;
}

void Sema::finishServe() {
  if (!ServeBlock)
    return;
  if (TrainBlock) {
    Diags.report(ServeBlock->Range.Start, diag::ServeWithTrain);
    return;
  }
  if (SearchBlock || !Search.Knobs.empty() || !PendingAxes.empty()) {
    Diags.report(ServeBlock->Range.Start, diag::ServeWithSearch);
    return;
  }
  if (Serve.Mode == ServeMode::Disaggregated && !disaggregated())
    return;
  if (Diags.hasErrors())
    return;
  if (!Serve.Dims[unsigned(PhaseDim::Batch)]) {
    Diags.report(ServeBlock->Range.Start, diag::ServeNoBatchDim);
    return;
  }
  llvm::SMLoc MeshAt = Mesh ? MeshDeclAt.lookup(Mesh->Name) : llvm::SMLoc();
  Serve.MeshAt = Diags.location(MeshAt.isValid() ? MeshAt : DecodeMeshAt.Start);
  P.Serve = Serve;
}
