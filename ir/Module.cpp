//===- Module.cpp - Modules and the builder -------------------------------===//
#include "ir/Module.h"
#include "diag/Diagnostic.h"
#include "llvm/ADT/DenseSet.h"
#include <cassert>

using namespace shardc;

Module::Module(std::shared_ptr<const ProgramInfo> Info, MeshSpec Mesh,
               ModuleConfig Config, Stage S)
    : Info(std::move(Info)), Mesh(std::move(Mesh)), Config(Config), St(S) {}

Value *Module::newValue(std::string Name, ShardType T) {
  auto V = std::make_unique<Value>();
  V->Id = Values.size();
  V->Name = std::move(Name);
  V->Type = std::move(T);
  Values.push_back(std::move(V));
  return Values.back().get();
}

void OpBuilder::insert(std::unique_ptr<Op> O, Loc L, unsigned Stmt,
                       llvm::ArrayRef<Value *> Operands) {
  O->Id = M.NextOpId++;
  O->Location = L;
  O->Stmt = Stmt;
  O->Operands.assign(Operands.begin(), Operands.end());
  for (Value *V : Operands) {
    assert(V && "an operand must be a value");
    V->Users.push_back(O.get());
  }
  Op *P = B->insert(Pos, std::move(O));
  (void)P;
  if (Pos != NoPos)
    ++Pos;
}

void OpBuilder::addResult(Op &O, std::string Name, ShardType T) {
  Value *V = M.newValue(std::move(Name), std::move(T));
  V->Def = &O;
  O.Result = V;
}

Op *OpBuilder::cloneAs(const Op &Src, llvm::ArrayRef<Value *> Operands,
                       std::string Name, ShardType T) {
  assert(Src.regions().empty() && "an op with regions is cloned with a map");
  std::unique_ptr<Op> O = Src.cloneFields();
  Op *P = O.get();
  insert(std::move(O), Src.loc(), Src.stmt(), Operands);
  if (Src.result())
    addResult(*P, std::move(Name), std::move(T));
  return P;
}

Op *OpBuilder::clone(const Op &Src, ValueMap &Map, StmtMap Stmt) {
  llvm::SmallVector<Value *, 4> Operands;
  for (Value *V : Src.operands()) {
    auto It = Map.find(V);
    Operands.push_back(It == Map.end() ? V : It->second);
  }
  std::unique_ptr<Op> O = Src.cloneFields();
  Op *P = O.get();
  insert(std::move(O), Src.loc(), Stmt ? Stmt(Src) : Src.stmt(), Operands);
  if (Value *R = Src.result()) {
    addResult(*P, R->name(), R->type());
    Map[R] = P->result();
  }
  // Regions: the clone's blocks are empty; fill them in order.
  llvm::ArrayRef<Block *> From = Src.regions(), To = P->regions();
  assert(From.size() == To.size() && "a clone has its source's regions");
  for (size_t I = 0; I < From.size(); ++I) {
    OpBuilder Inner(M, *To[I]);
    for (const auto &Nested : From[I]->ops())
      Inner.clone(*Nested, Map, Stmt);
  }
  if (auto *R = dyn_cast<RepeatOp>(&Src)) {
    auto Lookup = [&](Value *V) {
      auto It = Map.find(V);
      return It == Map.end() ? V : It->second;
    };
    for (const RepeatOp::Carried &C : R->carried())
      cast<RepeatOp>(P)->addCarried(Lookup(C.Init), Lookup(C.Next));
  }
  return P;
}

static std::unique_ptr<Module> cloneOn(const Module &M, const MeshSpec &Mesh) {
  auto Copy =
      std::make_unique<Module>(M.sharedInfo(), Mesh, M.config(), M.stage());
  OpBuilder B(*Copy, Copy->body());
  OpBuilder::ValueMap Map;
  for (const auto &O : M.body().ops())
    B.clone(*O, Map);
  return Copy;
}

std::unique_ptr<Module> shardc::cloneModule(const Module &M) {
  return cloneOn(M, M.mesh());
}

void Module::rebindSizes(const DimSizeMap &Sizes) {
  for (const std::unique_ptr<Value> &V : Values)
    V->Type.rebind(Sizes);
  walk(Body, [&](Op &O) { O.rebindSizes(Sizes); });
}

std::unique_ptr<Module> shardc::rebindModule(const Module &M,
                                             const MeshSpec &Mesh,
                                             const DimSizeMap &Sizes) {
  std::unique_ptr<Module> Copy = cloneOn(M, Mesh);
  Copy->rebindSizes(Sizes);
  return Copy;
}

const DiagDesc<std::string> &shardc::crossingDiag(const Value &V) {
  return isa<ParamOp>(V.def()) ? diag::PipelineParamInLayers
                               : diag::PipelineCrossing;
}

void shardc::forEachPipelineCrossing(
    const Block &Top,
    llvm::function_ref<void(const Op &Reader, const Value &V)> F) {
  size_t At = 0;
  const RepeatOp *Pipe = nullptr;
  for (; At < Top.ops().size() && !Pipe; ++At)
    if (auto *R = dyn_cast<RepeatOp>(Top.ops()[At].get());
        R && R->pipelineAxis())
      Pipe = R;
  if (!Pipe)
    return;
  llvm::DenseSet<const Value *> FirstStage;
  auto Add = [&](const Op &D) {
    if (D.result() && !isa<InputOp>(D))
      FirstStage.insert(D.result());
  };
  for (size_t I = 0; I + 1 < At; ++I) {
    Add(*Top.ops()[I]);
    for (Block *B : Top.ops()[I]->regions())
      walk(*B, Add);
  }
  llvm::DenseSet<const Value *> Reported;
  // A param declared before the layers and read after them (a tied
  // embedding and LM head) is a copy the last stage holds, not a crossing
  // (StagePartition::TiedOnLast); read by the layers, it would be one on
  // every stage, which shardc does not price.
  auto Check = [&](const Op &O, bool InBody) {
    for (const Value *V : O.operands())
      if (FirstStage.count(V) && !(InBody && Pipe->carriedFrom(V)) &&
          !(!InBody && isa<ParamOp>(V->def())) && Reported.insert(V).second)
        F(O, *V);
  };
  walk(Pipe->body(), [&](const Op &O) { Check(O, true); });
  for (size_t I = At; I < Top.ops().size(); ++I) {
    const Op &O = *Top.ops()[I];
    Check(O, false);
    for (Block *B : O.regions())
      walk(*B, [&](const Op &In) { Check(In, false); });
  }
}
