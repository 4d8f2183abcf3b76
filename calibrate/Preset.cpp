//===- Preset.cpp - A derived preset, as .shard text ----------------------===//
#include "calibrate/Preset.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace shardc::calibrate {
namespace {

void printConstants(const std::vector<Constant> &Cs, llvm::StringRef Indent,
                    llvm::raw_ostream &OS) {
  std::vector<std::string> Heads;
  size_t Width = 0;
  for (const Constant &C : Cs) {
    if (!C.Raw.empty()) {
      Heads.push_back(Indent.str() + C.Raw);
      Width = std::max(Width, Heads.back().size());
      continue;
    }
    Heads.push_back(Indent.str() + C.Name + " = " +
                    formatPlain(C.Value * (C.Seconds ? 1e6 : 1)) +
                    (C.Seconds ? " us;" : ";"));
    Width = std::max(Width, Heads.back().size());
  }
  for (size_t I = 0; I < Cs.size(); ++I) {
    OS << Heads[I];
    if (!Cs[I].Comment.empty())
      OS << std::string(Width - Heads[I].size() + 1, ' ') << "// "
         << Cs[I].Comment;
    OS << "\n";
  }
}

void printComments(const std::vector<std::string> &Lines,
                   llvm::StringRef Indent, llvm::raw_ostream &OS) {
  for (const std::string &L : Lines)
    OS << Indent << "// " << L << "\n";
}

} // namespace

std::string formatPlain(double V) {
  if (V == 0 || !std::isfinite(V))
    return "0";
  int Digits = 3 - int(std::floor(std::log10(std::fabs(V))));
  std::string S = fmt::format("{:.{}f}", V, std::max(Digits, 0));
  if (S.find('.') != std::string::npos) {
    S.erase(S.find_last_not_of('0') + 1);
    if (S.back() == '.')
      S.pop_back();
  }
  return S;
}

void printPreset(const DerivedPreset &P, llvm::raw_ostream &OS) {
  OS << "// Derived by `shardc calibrate` from component benchmarks: each "
        "fitted\n// constant names its source; \"5-fold error\" is the mean "
        "held-out |time\n// error| of a 5-fold cross-validation of its fit "
        "(docs/calibrate.md).\n"
        "import \"measured.shard\";\n";
  if (P.Chip) {
    OS << "\n";
    printComments(P.Chip->Comments, "", OS);
    OS << "chip " << P.Chip->Name << " : " << P.Chip->Base << " {\n";
    printConstants(P.Chip->Constants, "  ", OS);
    OS << "}\n";
  }
  if (P.Cluster) {
    OS << "\n";
    printComments(P.Cluster->Comments, "", OS);
    OS << "cluster " << P.Cluster->Name << " : " << P.Cluster->Base << " {\n";
    if (!P.Cluster->Chip.empty())
      OS << "  chip = " << P.Cluster->Chip << ";\n";
    if (!P.Cluster->Constants.empty()) {
      OS << "  level " << P.Cluster->Level << " {\n";
      printConstants(P.Cluster->Constants, "    ", OS);
      OS << "  }\n";
    }
    OS << "}\n";
  }
}

} // namespace shardc::calibrate
