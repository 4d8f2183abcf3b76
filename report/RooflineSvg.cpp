//===- RooflineSvg.cpp - The ops under the chip's roofline, as SVG --------===//
//
// --format=svg: each op of the report's table at its arithmetic intensity
// (FLOPs / HBM bytes per chip) and its achieved FLOP/s (FLOPs per chip / the
// op's time) under the chip's roofline: the memory slope at the rate a
// matmul's operands stream (hbm_bw x hbm_efficiency) and one compute ceiling
// per dtype the program uses (its matmul peak x the GEMM ceiling). Both
// axes are log10 in whole decades. Every number is read off the side tables
// the JSON report prints (flops_per_chip, hbm_bytes_per_chip, time_s,
// bound); the axis transform is written on the <svg> element as data-*
// attributes, so a test can place each point from the JSON report.
//
// The output is SVG 1.1 with no script and no external reference, and is
// the same bytes for the same input: coordinates have two decimals, data
// attributes the shortest exact form of each double.
//
//===----------------------------------------------------------------------===//
#include "report/Report.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

using namespace shardc;

namespace {

/// The canvas, and the plot's box inside it: the key is to its right, the
/// axis titles and the caption below it.
constexpr double Width = 900, MinHeight = 600;
constexpr double Left = 90, Top = 70, PlotW = 560, PlotH = 420;
constexpr double KeyX = 680, LineH = 14;
/// The numbered key below the caption: its columns and their width.
constexpr unsigned KeyColumns = 4;
constexpr double KeyColumnW = 215;
/// Up to this many drawn ops are labelled by name beside their point; more
/// are numbered, with the names in the key.
constexpr size_t NameLabelLimit = 10;
/// Characters per caption line.
constexpr size_t CaptionWidth = 120;

const char *boundColour(Bound B) {
  switch (B) {
  case Bound::Compute:
    return "#1f77b4";
  case Bound::Memory:
    return "#ff7f0e";
  case Bound::Comms:
    return "#d62728";
  }
  llvm_unreachable("every bound is handled");
}

std::string escape(llvm::StringRef S) {
  std::string Out;
  for (char Ch : S)
    switch (Ch) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    default:
      Out += Ch;
    }
  return Out;
}

/// One op of the report's table, where the plot puts it.
struct Point {
  size_t Index; ///< its place in the JSON report's `ops`
  const Statement *S;
  const OpCost *Cost;
  double Intensity = 0, Achieved = 0;
};

/// A compute ceiling: a dtype's matmul peak at the chip's GEMM ceiling.
struct Ceiling {
  DType Elt;
  double FlopsPerS;
};

/// Log10 axes in whole decades, and the pixel transform of both.
struct Axes {
  int XLo = 0, XHi = 1, YLo = 0, YHi = 1;
  double x(double V) const {
    return Left + (std::log10(V) - XLo) / (XHi - XLo) * PlotW;
  }
  double y(double V) const {
    return Top + PlotH - (std::log10(V) - YLo) / (YHi - YLo) * PlotH;
  }
};

/// The decades that hold every value: [floor(log10 min), floor(log10 max +
/// 1/4) + 1], so the largest value lies a quarter decade or more below the
/// top, where its label fits.
void decades(llvm::ArrayRef<double> Vs, int &Lo, int &Hi) {
  if (Vs.empty()) {
    Lo = 0, Hi = 3;
    return;
  }
  double Min = *std::min_element(Vs.begin(), Vs.end()),
         Max = *std::max_element(Vs.begin(), Vs.end());
  Lo = int(std::floor(std::log10(Min)));
  Hi = int(std::floor(std::log10(Max) + 0.25)) + 1;
}

/// The ceilings of the dtypes the lowered program's values have, where the
/// chip gives a matmul peak, by dtype.
std::vector<Ceiling> ceilings(const MeshCompile &C) {
  const ChipSpec &Chip = C.mesh().Cluster->Chip;
  std::array<bool, NumDTypes> Used{};
  walk(C.lowered()->body(), [&](const Op &O) {
    if (const Value *V = O.result())
      Used[unsigned(V->type().Elt)] = true;
  });
  std::vector<Ceiling> Out;
  for (unsigned T = 0; T < NumDTypes; ++T)
    if (Used[T] && Chip.matmulPeak(DType(T)) > 0)
      Out.push_back(
          {DType(T), Chip.matmulPeak(DType(T)) * Chip.matmulCeiling(DType(T))});
  return Out;
}

/// `1e3` as `10` with a superscript `3`.
std::string decadeLabel(int E) {
  return fmt::format("10<tspan dy=\"-6\" font-size=\"9\">{}</tspan>", E);
}

class RooflineWriter {
public:
  RooflineWriter(const MeshCompile &C, llvm::raw_ostream &OS) : C(C), OS(OS) {}
  void write();

private:
  const MeshCompile &C;
  llvm::raw_ostream &OS;
  std::vector<Point> Drawn, Skipped;
  std::vector<Ceiling> Ceils;
  double Slope = 0; ///< bytes/s
  Axes A;
  double Height = MinHeight;
  /// Where the numbered key goes: under the right-hand key (at x
  /// NumberedX) or below the caption (from y BelowY); 0: not there.
  double NumberedX = 0, BelowY = 0;

  void collect();
  void chooseAxes();
  std::vector<std::string> captionLines() const;
  void header();
  void grid();
  void roofline();
  void points();
  void key();
  void numbered(double X, double Y, unsigned Columns);
  void caption(llvm::ArrayRef<std::string> Lines);
};

void RooflineWriter::collect() {
  const ProgramInfo &Info = C.program().info();
  size_t Index = 0;
  for (size_t I = 0; I < Info.Statements.size(); ++I) {
    const Statement &S = Info.Statements[I];
    const auto &Cost = C.Tables.StatementCosts[I];
    // The rows of the table and of the JSON report's `ops`.
    if (!Cost || S.Kind == OpKind::Input || S.Kind == OpKind::Param)
      continue;
    Point P{Index++, &S, &*Cost};
    // A collective or a reshard has no FLOPs (or moves nothing through
    // HBM): no intensity, so no place on the plot.
    if (Cost->Flops <= 0 || Cost->HbmBytes <= 0 || Cost->Time <= 0) {
      Skipped.push_back(P);
      continue;
    }
    P.Intensity = Cost->Flops / Cost->HbmBytes;
    P.Achieved = Cost->Flops / Cost->Time;
    Drawn.push_back(P);
  }
  const ChipSpec &Chip = C.mesh().Cluster->Chip;
  Slope = Chip.HbmBw * Chip.HbmEfficiency;
  Ceils = ceilings(C);
}

void RooflineWriter::chooseAxes() {
  std::vector<double> Xs, Ys;
  for (const Point &P : Drawn) {
    Xs.push_back(P.Intensity);
    Ys.push_back(P.Achieved);
  }
  // Each ridge point with a decade either side, so the slope shows.
  for (const Ceiling &K : Ceils) {
    double Ridge = K.FlopsPerS / Slope;
    Xs.insert(Xs.end(), {Ridge / 10, Ridge * 10});
    Ys.insert(Ys.end(), {K.FlopsPerS / 10, K.FlopsPerS});
  }
  decades(Xs, A.XLo, A.XHi);
  decades(Ys, A.YLo, A.YHi);
}

std::vector<std::string> RooflineWriter::captionLines() const {
  if (Skipped.empty())
    return {};
  std::vector<std::string> Lines{fmt::format(
      "not drawn: {} op{} with no FLOPs or no HBM bytes (collectives, "
      "reshards), so no intensity:",
      Skipped.size(), Skipped.size() == 1 ? "" : "s")};
  std::string Line;
  for (size_t I = 0; I < Skipped.size(); ++I) {
    const Statement &S = *Skipped[I].S;
    std::string Item =
        fmt::format("{} ({}, line {}){}", S.Name, opNoun(S.Kind).str(),
                    S.Location.Line, I + 1 < Skipped.size() ? "," : "");
    if (!Line.empty() && Line.size() + Item.size() + 1 > CaptionWidth) {
      Lines.push_back(Line);
      Line.clear();
    }
    Line += (Line.empty() ? "" : " ") + Item;
  }
  Lines.push_back(Line);
  return Lines;
}

void RooflineWriter::header() {
  const MeshSpec &Mesh = C.mesh();
  std::vector<std::string> Axes;
  for (const MeshAxis &X : Mesh.Axes)
    Axes.push_back(fmt::format("{}: {}", X.Name, X.Size));
  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  OS << fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
      "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" data-log=\"10\" data-plot-left=\"{2}\" "
      "data-plot-top=\"{3}\" data-plot-width=\"{4}\" data-plot-height=\"{5}\" "
      "data-x-min-log10=\"{6}\" data-x-max-log10=\"{7}\" "
      "data-y-min-log10=\"{8}\" data-y-max-log10=\"{9}\">\n",
      Width, Height, Left, Top, PlotW, PlotH, A.XLo, A.XHi, A.YLo, A.YHi);
  std::string Source = C.program().info().SourceName;
  OS << fmt::format("<title>roofline of {}</title>\n", escape(Source));
  OS << fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n",
                    Width, Height);
  OS << fmt::format("<text x=\"{}\" y=\"26\" font-size=\"16\" "
                    "font-weight=\"bold\">roofline: {}</text>\n",
                    Left, escape(Source));
  OS << fmt::format(
      "<text x=\"{}\" y=\"46\" font-size=\"12\">mesh {} = {}[{}]: {} x {}, "
      "per chip</text>\n",
      Left, escape(Mesh.Name), escape(Mesh.Cluster->Name),
      escape(llvm::join(Axes, ", ")), Mesh.numChips(),
      escape(Mesh.Cluster->Chip.Name));
}

void RooflineWriter::grid() {
  double Bottom = Top + PlotH, Right = Left + PlotW;
  OS << "<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (int E = A.XLo; E <= A.XHi; ++E) {
    double X = A.x(std::pow(10.0, E));
    OS << fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{0:.2f}\" "
                      "y2=\"{2:.2f}\"/>\n",
                      X, Top, Bottom);
  }
  for (int E = A.YLo; E <= A.YHi; ++E) {
    double Y = A.y(std::pow(10.0, E));
    OS << fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{2:.2f}\" "
                      "y2=\"{1:.2f}\"/>\n",
                      Left, Y, Right);
  }
  OS << "</g>\n";
  OS << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                    "fill=\"none\" stroke=\"black\"/>\n",
                    Left, Top, PlotW, PlotH);
  // Decade labels under and left of the box, then the axis titles.
  OS << "<g class=\"ticks\" font-size=\"11\">\n";
  for (int E = A.XLo; E <= A.XHi; ++E)
    OS << fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" "
                      "text-anchor=\"middle\">{}</text>\n",
                      A.x(std::pow(10.0, E)), Bottom + 20, decadeLabel(E));
  for (int E = A.YLo; E <= A.YHi; ++E)
    OS << fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" "
                      "text-anchor=\"end\">{}</text>\n",
                      Left - 8, A.y(std::pow(10.0, E)) + 4, decadeLabel(E));
  OS << "</g>\n";
  OS << fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"12\" "
                    "text-anchor=\"middle\">arithmetic intensity (FLOP/B per "
                    "chip: FLOPs / HBM bytes)</text>\n",
                    Left + PlotW / 2, Bottom + 42);
  OS << fmt::format("<text x=\"20\" y=\"{0:.2f}\" font-size=\"12\" "
                    "text-anchor=\"middle\" transform=\"rotate(-90 20 "
                    "{0:.2f})\">achieved FLOP/s per chip (FLOPs / op "
                    "time)</text>\n",
                    Top + PlotH / 2);
}

void RooflineWriter::roofline() {
  if (Ceils.empty())
    return;
  double XMin = std::pow(10.0, A.XLo), XMax = std::pow(10.0, A.XHi);
  double YMin = std::pow(10.0, A.YLo);
  double Highest = 0;
  for (const Ceiling &K : Ceils)
    Highest = std::max(Highest, K.FlopsPerS);
  // The slope from where it enters the box to the highest ridge point.
  double From = std::max(XMin, YMin / Slope), To = Highest / Slope;
  OS << "<g class=\"roofline\" stroke-width=\"2\" fill=\"none\">\n";
  if (From < To)
    OS << fmt::format("<line class=\"memory-slope\" data-bytes-per-s=\"{}\" "
                      "stroke=\"#444444\" x1=\"{:.2f}\" y1=\"{:.2f}\" "
                      "x2=\"{:.2f}\" y2=\"{:.2f}\"/>\n",
                      Slope, A.x(From), A.y(From * Slope), A.x(To),
                      A.y(Highest));
  for (const Ceiling &K : Ceils) {
    double Ridge = K.FlopsPerS / Slope;
    OS << fmt::format("<line class=\"ceiling\" data-dtype=\"{}\" "
                      "data-flops-per-s=\"{}\" stroke=\"#444444\" "
                      "stroke-dasharray=\"{}\" x1=\"{:.2f}\" y1=\"{:.2f}\" "
                      "x2=\"{:.2f}\" y2=\"{:.2f}\"/>\n",
                      dtypeName(K.Elt).str(), K.FlopsPerS,
                      K.FlopsPerS == Highest ? "none" : "6 3", A.x(Ridge),
                      A.y(K.FlopsPerS), A.x(XMax), A.y(K.FlopsPerS));
  }
  OS << "</g>\n<g class=\"roofline-labels\" font-size=\"10\" "
        "fill=\"#444444\">\n";
  for (const Ceiling &K : Ceils)
    OS << fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" "
                      "text-anchor=\"end\">{} {}</text>\n",
                      Left + PlotW - 4, A.y(K.FlopsPerS) - 4,
                      dtypeName(K.Elt).str(),
                      formatAmount(K.FlopsPerS, "FLOP/s"));
  OS << "</g>\n";
}

void RooflineWriter::points() {
  bool Named = Drawn.size() <= NameLabelLimit;
  OS << "<g class=\"ops\">\n";
  for (size_t N = 0; N < Drawn.size(); ++N) {
    const Point &P = Drawn[N];
    const Statement &S = *P.S;
    double X = A.x(P.Intensity), Y = A.y(P.Achieved);
    llvm::StringRef Bound = boundName(P.Cost->Bounded);
    OS << fmt::format(
        "<circle class=\"op {}\" data-index=\"{}\" data-op=\"{}\" "
        "data-bound=\"{}\" data-intensity=\"{}\" data-flops-per-s=\"{}\" "
        "cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"4\" fill=\"{}\" stroke=\"black\" "
        "stroke-width=\"0.5\"><title>{} (line {}): {} FLOP/B, {}, {} "
        "bound</title></circle>\n",
        Bound.str(), P.Index, escape(S.Name), Bound.str(), P.Intensity,
        P.Achieved, X, Y, boundColour(P.Cost->Bounded), escape(S.Name),
        S.Location.Line, formatSig4(P.Intensity),
        formatAmount(P.Achieved, "FLOP/s"), Bound.str());
    // Points drawn on top of each other get their labels stacked.
    double Below = 0;
    for (size_t M = 0; M < N; ++M)
      if (std::fabs(A.x(Drawn[M].Intensity) - X) < 3 &&
          std::fabs(A.y(Drawn[M].Achieved) - Y) < 3)
        Below += 11;
    OS << fmt::format("<text class=\"label\" x=\"{:.2f}\" y=\"{:.2f}\" "
                      "font-size=\"10\">{}</text>\n",
                      X + 6, Y - 5 + Below,
                      Named ? escape(S.Name) : std::to_string(N + 1));
  }
  OS << "</g>\n";
}

void RooflineWriter::key() {
  double Y = Top + 10;
  OS << "<g class=\"key\" font-size=\"11\">\n";
  for (Bound B : {Bound::Compute, Bound::Memory, Bound::Comms}) {
    OS << fmt::format("<circle cx=\"{}\" cy=\"{:.2f}\" r=\"4\" fill=\"{}\" "
                      "stroke=\"black\" stroke-width=\"0.5\"/>\n",
                      KeyX + 4, Y - 4, boundColour(B));
    OS << fmt::format("<text x=\"{}\" y=\"{:.2f}\">{} bound</text>\n",
                      KeyX + 14, Y, boundName(B).str());
    Y += LineH;
  }
  Y += LineH / 2;
  const ChipSpec &Chip = C.mesh().Cluster->Chip;
  OS << fmt::format(
      "<text x=\"{}\" y=\"{:.2f}\">memory slope: {} x {}</text>\n", KeyX, Y,
      formatAmount(Chip.HbmBw, "B/s"), formatSig4(Chip.HbmEfficiency));
  Y += LineH;
  for (const Ceiling &K : Ceils) {
    OS << fmt::format(
        "<text x=\"{}\" y=\"{:.2f}\">{} ceiling: {} x {}</text>\n", KeyX, Y,
        dtypeName(K.Elt).str(), formatAmount(Chip.matmulPeak(K.Elt), "FLOP/s"),
        formatSig4(Chip.matmulCeiling(K.Elt)));
    Y += LineH;
  }
  if (NumberedX > 0)
    numbered(NumberedX, Y + LineH / 2, 1);
  OS << "</g>\n";
}

void RooflineWriter::numbered(double X, double Y, unsigned Columns) {
  size_t Rows = (Drawn.size() + Columns - 1) / Columns;
  for (size_t N = 0; N < Drawn.size(); ++N)
    OS << fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\">{} {} (line "
                      "{})</text>\n",
                      X + double(N / Rows) * KeyColumnW,
                      Y + double(N % Rows) * LineH, N + 1,
                      escape(Drawn[N].S->Name), Drawn[N].S->Location.Line);
}

void RooflineWriter::caption(llvm::ArrayRef<std::string> Lines) {
  if (Skipped.empty())
    return;
  std::string Indices;
  for (const Point &P : Skipped)
    Indices += (Indices.empty() ? "" : " ") + std::to_string(P.Index);
  OS << fmt::format("<g class=\"not-drawn\" data-indices=\"{}\" "
                    "font-size=\"11\">\n",
                    Indices);
  double Y = Top + PlotH + 66;
  for (const std::string &L : Lines) {
    OS << fmt::format("<text x=\"20\" y=\"{:.2f}\">{}</text>\n", Y, escape(L));
    Y += LineH;
  }
  OS << "</g>\n";
}

void RooflineWriter::write() {
  collect();
  chooseAxes();
  std::vector<std::string> Lines = captionLines();
  // A numbered key fits under the right-hand key, or else goes below the
  // caption in columns; the canvas grows to hold it and the caption.
  double KeyBottom = Top + 10 + (5 + Ceils.size()) * LineH;
  double CaptionBottom = Top + PlotH + 66 + Lines.size() * LineH;
  size_t Rows = 0;
  if (Drawn.size() > NameLabelLimit) {
    if (KeyBottom + (Drawn.size() + 1) * LineH <= MinHeight - 10) {
      NumberedX = KeyX;
    } else {
      Rows = (Drawn.size() + KeyColumns - 1) / KeyColumns;
      BelowY = CaptionBottom + LineH;
    }
  }
  Height = std::max(MinHeight, std::ceil(CaptionBottom + (Rows + 1) * LineH));
  header();
  grid();
  roofline();
  points();
  key();
  caption(Lines);
  if (BelowY > 0) {
    OS << "<g class=\"key\" font-size=\"11\">\n";
    numbered(20, BelowY, KeyColumns);
    OS << "</g>\n";
  }
  OS << "</svg>\n";
}

} // namespace

void shardc::printRooflineSvg(const MeshCompile &C, llvm::raw_ostream &OS) {
  RooflineWriter(C, OS).write();
}

void shardc::printEmptyRooflineSvg(llvm::raw_ostream &OS) {
  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                    "version=\"1.1\" width=\"{0}\" height=\"80\" "
                    "viewBox=\"0 0 {0} 80\" font-family=\"sans-serif\">\n",
                    Width)
     << "<text x=\"20\" y=\"40\" font-size=\"14\">no mesh declared: nothing "
        "to plot</text>\n</svg>\n";
}
