//===- Overrides.cpp - -D and --mesh: the file with other values ----------===//
//
// Applies the command line's overrides to the loaded syntax trees, before
// Sema: the expression a dim, let, train setting or mesh axis was written
// with is replaced by the command line's value, an expression located in
// the `<command line>` buffer. What follows cannot tell the difference from
// a file with the value typed in, which is the point: the compile is the
// edited file's, and a bad value gets Sema's own diagnostic, pointing at
// the command line.
//
// Values are lexed by the file's lexer, so they are spelt as in a file: a
// number (a let's may carry a unit, `450 GB/s`), or a word (`full`, `1f1b`,
// which lexes as a number and a unit, as in a file).
//
//===----------------------------------------------------------------------===//
#include "frontend/Overrides.h"
#include "diag/Diagnostic.h"
#include "diag/Suggest.h"
#include "frontend/AST.h"
#include "frontend/Compiler.h"
#include "frontend/Lexer.h"
#include "frontend/Properties.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include <map>

using namespace shardc;

namespace {

/// One token of an override, with its offset in the buffer.
struct Token {
  tok::Kind Kind;
  size_t Begin, End;
};

/// A dim or let of the main file that -D may set.
struct Target {
  Binding *B;
  llvm::StringRef Kind; ///< "dim" or "let"
};

bool isUnit(tok::Kind K) { return K == tok::ID || K == tok::MICRO_UNIT; }

class Applier {
public:
  Applier(DiagnosticEngine &Diags, Program &P, llvm::StringRef Buf)
      : Diags(Diags), P(P), Buf(Buf) {}

  void define(size_t Begin, size_t End);
  void mesh(size_t Begin, size_t End);

private:
  llvm::SMLoc loc(size_t Off) const {
    return llvm::SMLoc::getFromPointer(Buf.data() + Off);
  }
  llvm::SMRange range(size_t Begin, size_t End) const {
    return {loc(Begin), loc(End)};
  }
  std::string text(size_t Begin, size_t End) const {
    return Buf.slice(Begin, End).str();
  }
  std::vector<Token> lex(size_t Begin, size_t End) const;
  ExprPtr value(const std::vector<Token> &Toks) const;
  std::optional<Target> findDimOrLet(const std::string &N,
                                     std::vector<std::string> &Names);
  TrainDecl *mainTrain();
  ConfigDecl *mainConfig();
  void setConfig(const std::string &Name, llvm::SMRange NameAt, ExprPtr V);
  void setKnob(TrainDecl &Train, const std::string &Name, llvm::SMRange NameAt,
               ExprPtr V);
  MeshDecl *programMesh(llvm::SMRange At);
  void setAxes(MeshDecl &M, const std::vector<Token> &Toks, size_t I,
               llvm::SMRange At);

  /// Records that \p Text replaces \p R of the main file: an earlier edit
  /// of the same range is dropped (the later -D wins), an insertion at the
  /// same place extended.
  void edit(llvm::SMRange R, std::string Text) {
    for (Program::TextEdit &E : P.OverrideEdits)
      if (E.Range.Start == R.Start) {
        if (R.Start == R.End && E.Range.Start == E.Range.End)
          E.Text += Text;
        else
          E = {R, std::move(Text)};
        return;
      }
    P.OverrideEdits.push_back({R, std::move(Text)});
  }
  /// Sets \p Prop, a property of the main file or one a -D added: in the
  /// printed file, the property replaced, or the added one's setting.
  void editProperty(const Property &Prop, const std::string &Name) {
    if (inMain(Prop.Range.Start))
      return edit(Prop.Range, Setting);
    add(Name, /*Train=*/false, /*Replace=*/true);
  }
  /// Records a property a -D adds to the train (or the config) block, or
  /// with \p Replace the new value of one it added.
  void add(const std::string &Name, bool Train, bool Replace = false) {
    for (auto *List : {&AddedTrain, &AddedConfig})
      for (auto &[N, Text] : *List)
        if (Replace && N == Name) {
          Text = Setting;
          return;
        }
    (Train ? AddedTrain : AddedConfig).push_back({Name, Setting});
  }
  bool inMain(llvm::SMLoc L) const {
    const llvm::MemoryBuffer *Main =
        Diags.sourceMgr().getMemoryBuffer(P.Files.back()->BufferId);
    const char *At = L.getPointer();
    return At && At >= Main->getBufferStart() && At <= Main->getBufferEnd();
  }

public:
  /// The properties -D added, as edits: before the train block's closing
  /// brace; before the config block's, or in a config block added at the
  /// end of the file.
  void finish();

private:
  std::vector<std::pair<std::string, std::string>> AddedTrain, AddedConfig;
  std::map<const Binding *, llvm::SMRange> ValueRange;
  /// The property `NAME = VALUE;` as the -D being applied writes it.
  std::string Setting;

  DiagnosticEngine &Diags;
  Program &P;
  llvm::StringRef Buf;
};

std::vector<Token> Applier::lex(size_t Begin, size_t End) const {
  std::vector<Token> Toks;
  Lexer L(Buf.slice(Begin, End));
  for (Lexeme T = L.next(); T.Kind != tok::EndOfFile; T = L.next())
    Toks.push_back({T.Kind, Begin + T.Offset, Begin + T.Offset + T.Length});
  return Toks;
}

/// NUMBER (UNIT ('/' UNIT)?)? or a word, as an expression; null otherwise.
ExprPtr Applier::value(const std::vector<Token> &T) const {
  if (T.empty())
    return nullptr;
  auto E = std::make_unique<Expr>();
  E->Range = range(T.front().Begin, T.back().End);
  E->Text = text(T[0].Begin, T[0].End);
  if (T.size() == 1 && T[0].Kind == tok::ID) {
    E->Kind = ExprKind::Name;
    return E;
  }
  E->Kind = ExprKind::Number;
  if (T[0].Kind != tok::NUMBER || T.size() == 3 || T.size() > 4 ||
      (T.size() >= 2 && !isUnit(T[1].Kind)) ||
      (T.size() == 4 && (T[2].Kind != tok::SLASH || !isUnit(T[3].Kind))))
    return nullptr;
  if (T.size() >= 2) {
    E->Unit = text(T[1].Begin, T[1].End);
    E->UnitRange = range(T[1].Begin, T.back().End);
  }
  if (T.size() == 4) {
    E->Per = text(T[3].Begin, T[3].End);
    E->PerRange = range(T[3].Begin, T[3].End);
  }
  return E;
}

/// The main file's top-level dim or let \p N (what a user sees and edits);
/// appends every such name to \p Names, for "did you mean".
std::optional<Target> Applier::findDimOrLet(const std::string &N,
                                            std::vector<std::string> &Names) {
  std::optional<Target> Found;
  for (DeclPtr &D : P.Files.back()->Items) {
    std::vector<Binding> *Bs = nullptr;
    llvm::StringRef Kind;
    if (auto *Dim = llvm::dyn_cast<DimDecl>(D.get()))
      Bs = &Dim->Bindings, Kind = "dim";
    else if (auto *Let = llvm::dyn_cast<LetDecl>(D.get()))
      Bs = &Let->Bindings, Kind = "let";
    if (!Bs)
      continue;
    for (Binding &B : *Bs) {
      Names.push_back(B.Name.Name);
      if (B.Name.Name == N && !Found)
        Found = Target{&B, Kind};
    }
  }
  return Found;
}

/// The main file's train block (Sema reports a second one), if any.
TrainDecl *Applier::mainTrain() {
  for (DeclPtr &D : P.Files.back()->Items)
    if (auto *T = llvm::dyn_cast<TrainDecl>(D.get()))
      return T;
  return nullptr;
}

/// The main file's config block, if any.
ConfigDecl *Applier::mainConfig() {
  for (DeclPtr &D : P.Files.back()->Items)
    if (auto *C = llvm::dyn_cast<ConfigDecl>(D.get()))
      return C;
  return nullptr;
}

/// Sets config setting \p Name: replaces its value in the main file's
/// config block, or adds it there (adding the block where there is none).
void Applier::setConfig(const std::string &Name, llvm::SMRange NameAt,
                        ExprPtr V) {
  ConfigDecl *C = mainConfig();
  if (!C) {
    auto New = std::make_unique<ConfigDecl>();
    New->Range = NameAt;
    C = New.get();
    P.Files.back()->Items.push_back(std::move(New));
  }
  for (Property &Prop : C->Props)
    if (Prop.Name.Name == Name) {
      editProperty(Prop, Name);
      Prop.Value = std::move(V);
      Prop.Form = PropForm::Assign;
      Prop.Set.reset();
      return;
    }
  add(Name, /*Train=*/false);
  Property &Prop = C->Props.emplace_back();
  Prop.Name = Ident{Name, NameAt};
  Prop.Value = std::move(V);
}

/// `-D NAME=VALUE`, the argument at [Begin, End) of the buffer.
void Applier::define(size_t Begin, size_t End) {
  size_t Eq = Buf.slice(Begin, End).find('=');
  std::vector<Token> Name =
      lex(Begin, Eq == llvm::StringRef::npos ? End : Begin + Eq);
  if (Eq == llvm::StringRef::npos || Name.size() != 1 ||
      Name[0].Kind != tok::ID) {
    Diags.report(range(Begin, End), diag::OverrideMalformed, text(Begin, End));
    return;
  }
  std::string N = text(Name[0].Begin, Name[0].End);
  llvm::SMRange NameAt = range(Name[0].Begin, Name[0].End);
  size_t ValueBegin = Begin + Eq + 1;
  ExprPtr V = value(lex(ValueBegin, End));
  if (!V) {
    Diags.report(range(ValueBegin, std::max(ValueBegin, End)),
                 diag::OverrideBadValue, text(ValueBegin, End));
    return;
  }
  std::string Written = llvm::StringRef(text(ValueBegin, End)).trim().str();
  Setting = N + " = " + Written + ";";
  std::vector<std::string> Names;
  std::optional<Target> Found = findDimOrLet(N, Names);
  // Without a train block a name can only be the dim or let it names.
  TrainDecl *Train = mainTrain();
  bool Knob = findSchema(PropOwner::Train, N) != nullptr;
  if (Found && Knob && Train) {
    Diags.report(NameAt, diag::OverrideAmbiguous, N, Found->Kind);
    Diags.report(Found->B->Name.Range, diag::OverrideDeclaredHere, Found->Kind,
                 N);
    return;
  }
  // A config setting (`overlap`, `fuse`, ...) replaces the config block's
  // value; `fuse`, which a train block may set too, goes where the file
  // sets it, else to the train block if there is one.
  bool ConfigKnob = findSchema(PropOwner::Config, N) != nullptr;
  if (ConfigKnob && !Found) {
    ConfigDecl *C = mainConfig();
    bool InConfig = C && llvm::any_of(C->Props, [&](const Property &Prop) {
                      return Prop.Name.Name == N;
                    });
    if (!Knob || InConfig || !Train)
      return setConfig(N, NameAt, std::move(V));
  }
  if (Knob && !Found) {
    if (!Train)
      return Diags.report(NameAt, diag::OverrideNeedsTrain, N);
    return setKnob(*Train, N, NameAt, std::move(V));
  }
  if (!Found) {
    for (const std::string &K : schemaNames(PropOwner::Train))
      Names.push_back(K);
    for (const std::string &K : schemaNames(PropOwner::Config))
      Names.push_back(K);
    if (auto Best = closestName(N, Names))
      Diags.report(NameAt, diag::OverrideUnknownSuggest, N, *Best);
    else
      Diags.report(NameAt, diag::OverrideUnknown, N);
    return;
  }
  // A dim's size is a count: Sema would look a word up as a name, and
  // "undefined name" would hide what is wrong.
  if (Found->Kind == "dim" && V->Kind != ExprKind::Number) {
    Diags.report(V->Range, diag::OverrideDimNotWhole, N, text(ValueBegin, End));
    return;
  }
  // The value's range in the file (a second -D finds the first's value).
  if (Found->B->Value)
    edit(ValueRange.try_emplace(Found->B, Found->B->Value->Range).first->second,
         Written);
  Found->B->Value = std::move(V);
}

/// Sets train setting \p Name: replaces its value in the main file's train
/// block, or adds it there.
void Applier::setKnob(TrainDecl &Train, const std::string &Name,
                      llvm::SMRange NameAt, ExprPtr V) {
  // A knob the file searches (`zero in {0, 1};`, in `train` or `search`)
  // is fixed by the override: it is then not searched.
  for (DeclPtr &D : P.Files.back()->Items)
    if (auto *S = llvm::dyn_cast<SearchDecl>(D.get()))
      llvm::erase_if(S->Props, [&](const Property &Prop) {
        return Prop.Name.Name == Name;
      });
  for (Property &Prop : Train.Props)
    if (Prop.Name.Name == Name) {
      editProperty(Prop, Name);
      Prop.Value = std::move(V);
      Prop.Form = PropForm::Assign;
      Prop.Set.reset();
      return;
    }
  add(Name, /*Train=*/true);
  Property &Prop = Train.Props.emplace_back();
  Prop.Name = Ident{Name, NameAt};
  Prop.Value = std::move(V);
}

/// The mesh the program's tensors live on, as Sema chooses it: the one
/// `config { mesh = M; }` names, else the only one. Null after reporting
/// why there is none (or when the config names no mesh, which Sema reports).
MeshDecl *Applier::programMesh(llvm::SMRange At) {
  std::vector<MeshDecl *> Meshes;
  const Expr *Chosen = nullptr;
  for (std::unique_ptr<FileAST> &F : P.Files)
    for (DeclPtr &D : F->Items) {
      if (auto *M = llvm::dyn_cast<MeshDecl>(D.get()))
        Meshes.push_back(M);
      if (auto *C = llvm::dyn_cast<ConfigDecl>(D.get()))
        for (const Property &Prop : C->Props)
          if (Prop.Name.Name == "mesh" && !Chosen)
            Chosen = Prop.Value.get();
    }
  if (Chosen) {
    for (MeshDecl *M : Meshes)
      if (Chosen->Kind == ExprKind::Name && M->Name.Name == Chosen->Text)
        return M;
    return nullptr;
  }
  if (Meshes.size() == 1)
    return Meshes.front();
  if (Meshes.empty()) {
    Diags.report(At, diag::MeshOverrideNoMesh);
    return nullptr;
  }
  std::vector<std::string> Names;
  for (MeshDecl *M : Meshes)
    Names.push_back(M->Name.Name);
  Diags.report(At, diag::MeshOverrideAmbiguous, llvm::join(Names, ", "));
  return nullptr;
}

/// `--mesh '[AXIS: SIZE, ...]'` (the brackets optional), the argument at
/// [Begin, End) of the buffer.
void Applier::mesh(size_t Begin, size_t End) {
  std::vector<Token> Toks = lex(Begin, End);
  size_t I = 0, Last = Toks.size();
  auto Expect = [&](llvm::StringRef What, size_t J) {
    bool AtEnd = J == Toks.size();
    size_t From = AtEnd ? End : Toks[J].Begin, To = AtEnd ? End : Toks[J].End;
    Diags.report(range(From, To), diag::MeshOverrideMalformed, What,
                 AtEnd ? "the end" : "'" + text(From, To) + "'");
  };
  if (!Toks.empty() && Toks[0].Kind == tok::LBRACK) {
    ++I;
    if (Last == I || Toks[Last - 1].Kind != tok::RBRACK)
      return Expect("']'", Toks.size());
    --Last;
  }
  // AXIS ':' NUMBER (',' AXIS ':' NUMBER)*
  static const tok::Kind Kinds[] = {tok::ID, tok::COLON, tok::NUMBER,
                                    tok::COMMA};
  static const llvm::StringRef What[] = {"an axis name", "':'", "a size",
                                         "','"};
  for (size_t J = I, Step = 0;; ++J, Step = (Step + 1) % 4) {
    if (J == Last && Step == 3)
      break;
    if (J == Last || Toks[J].Kind != Kinds[Step])
      return Expect(What[Step], J);
  }
  llvm::SMRange At = range(Begin, End);
  if (MeshDecl *M = programMesh(At))
    setAxes(*M, {Toks.begin() + I, Toks.begin() + Last}, 0, At);
}

/// Gives mesh \p M the sizes of \p Toks (AXIS ':' NUMBER, separated by
/// commas, from index \p I): the axes named, in the mesh's order.
void Applier::setAxes(MeshDecl &M, const std::vector<Token> &Toks, size_t I,
                      llvm::SMRange At) {
  std::vector<std::string> Axes;
  for (const MeshAxisAST &A : M.Axes)
    Axes.push_back(A.Name.Name);
  std::vector<ExprPtr> Sizes(M.Axes.size());
  std::optional<size_t> Prev;
  for (; I < Toks.size(); I += 4) {
    std::string Name = text(Toks[I].Begin, Toks[I].End);
    llvm::SMRange NameAt = range(Toks[I].Begin, Toks[I].End);
    auto It = llvm::find(Axes, Name);
    if (It == Axes.end()) {
      if (auto Best = closestName(Name, Axes))
        Diags.report(NameAt, diag::MeshOverrideUnknownAxisSuggest, M.Name.Name,
                     Name, *Best);
      else
        Diags.report(NameAt, diag::MeshOverrideUnknownAxis, M.Name.Name, Name,
                     llvm::join(Axes, ", "));
      return;
    }
    size_t Index = It - Axes.begin();
    if (Sizes[Index]) {
      Diags.report(NameAt, diag::MeshOverrideDuplicateAxis, Name);
      return;
    }
    if (Prev && Index < *Prev) {
      Diags.report(NameAt, diag::MeshOverrideOrder, Name, Axes[*Prev],
                   M.Name.Name);
      return;
    }
    Prev = Index;
    Sizes[Index] = value({Toks[I + 2]});
  }
  // A searched size (`?`, `? in SET`) given here is fixed: not searched.
  for (size_t A = 0; A < Sizes.size(); ++A)
    if (Sizes[A]) {
      M.Axes[A].SizeRange = Sizes[A]->Range;
      M.Axes[A].Size = std::move(Sizes[A]);
      M.Axes[A].Set.reset();
    }
  M.SizesAt = At;
}

} // namespace

void Applier::finish() {
  auto Join = [](const std::vector<std::pair<std::string, std::string>> &L) {
    std::string Out;
    for (const auto &[N, Text] : L)
      Out += Text + " ";
    return Out;
  };
  auto Before = [&](llvm::SMRange Block, const std::string &Text) {
    llvm::SMLoc Brace = llvm::SMLoc::getFromPointer(Block.End.getPointer() - 1);
    edit({Brace, Brace}, Text);
  };
  if (TrainDecl *T = mainTrain(); T && !AddedTrain.empty())
    Before(T->Range, Join(AddedTrain));
  if (AddedConfig.empty())
    return;
  ConfigDecl *C = mainConfig();
  if (C && inMain(C->Range.End))
    return Before(C->Range, Join(AddedConfig));
  const llvm::MemoryBuffer *Main =
      Diags.sourceMgr().getMemoryBuffer(P.Files.back()->BufferId);
  llvm::SMLoc End = llvm::SMLoc::getFromPointer(Main->getBufferEnd());
  std::string Text = Join(AddedConfig);
  edit({End, End}, "\nconfig { " + Text.substr(0, Text.size() - 1) + " }\n");
}

bool shardc::applyOverrides(const Overrides &O, DiagnosticEngine &Diags,
                            Program &P) {
  if (O.empty() || P.Files.empty())
    return true;
  // One line per override, as the user wrote it (a shell's quotes gone);
  // a line break or other control character inside an argument becomes a
  // space, so each override keeps its one line (and a value split in two
  // is reported as the two words it reads as).
  auto OneLine = [](std::string A) {
    for (char &C : A)
      if (static_cast<unsigned char>(C) < 0x20)
        C = ' ';
    return A;
  };
  std::string Text;
  std::vector<std::pair<size_t, size_t>> Defines;
  for (const std::string &D : O.Defines) {
    Text += "-D ";
    Defines.push_back({Text.size(), Text.size() + D.size()});
    Text += OneLine(D) + "\n";
  }
  std::pair<size_t, size_t> Mesh;
  if (O.Mesh) {
    Text += "--mesh ";
    Mesh = {Text.size(), Text.size() + O.Mesh->size()};
    Text += OneLine(*O.Mesh) + "\n";
  }
  llvm::SourceMgr &SM = Diags.sourceMgr();
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, CommandLineBufferName),
      llvm::SMLoc());
  unsigned Before = Diags.errorCount();
  Applier A(Diags, P, SM.getMemoryBuffer(Id)->getBuffer());
  for (auto [Begin, End] : Defines)
    A.define(Begin, End);
  if (O.Mesh)
    A.mesh(Mesh.first, Mesh.second);
  A.finish();
  return Diags.errorCount() == Before;
}
