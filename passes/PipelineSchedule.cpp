//===- PipelineSchedule.cpp - Simulating a pipeline's schedule ------------===//
//
// COST-MODEL.md §6.3: the schedule is simulated, not looked up. Each stage
// has its order of slices (GPipe: all forwards, then all backwards; 1F1B:
// min(m, p - s) warm-up forwards, then a backward and a forward in turn,
// then the cool-down backwards; interleaved: Megatron-LM's order over the
// chunks). Sweeps up and down the stages schedule each slice once, when its
// stage is free and its input is there.
//
//===----------------------------------------------------------------------===//
#include "passes/Schedule.h"

using namespace shardc;

namespace {
struct Work {
  unsigned Chunk;
  int64_t Mb;
  bool Backward;
};

/// The k-th forward (or backward) of a stage under the interleaved
/// schedule: microbatches in groups of p, each group through every chunk
/// (backwards: the chunks in reverse).
std::vector<Work> interleavedList(unsigned P, unsigned V, int64_t M,
                                  bool Backward) {
  std::vector<Work> L;
  L.reserve(size_t(M * V));
  int64_t Group = int64_t(P) * V;
  for (int64_t K = 0; int64_t(L.size()) < M * V; ++K) {
    unsigned C = unsigned((K % Group) / P);
    int64_t Mb = (K / Group) * P + K % P;
    if (Mb < M)
      L.push_back({Backward ? V - 1 - C : C, Mb, Backward});
  }
  return L;
}

/// The interleaved lists every stage's order reads (the same for each
/// stage: built once per simulation, not once per stage).
struct Lists {
  std::vector<Work> F, B;
};

/// One stage's order, slice by slice, without holding it (a layout search
/// simulates schedules of 10^5 slices per candidate): a cursor that
/// counts, never divides. GPipe: all forwards (chunk by chunk), then all
/// backwards (chunks in reverse). Otherwise Warm forwards, then pairs,
/// then the remaining backwards: 1F1B on one chunk pairs a backward then a
/// forward after min(m, p - s) forwards; Megatron-LM's interleaved order
/// pairs a forward then a backward over the chunks' lists after
/// (p - s - 1) x 2 + (v - 1) x p forwards.
class StageOrder {
public:
  StageOrder(PipelineSchedule S, unsigned P, unsigned V, int64_t M,
             unsigned Stage, const Lists &FB)
      : V(V), M(M), FB(FB), Total(M * V) {
    GPipe = S == PipelineSchedule::GPipe;
    Listed = !GPipe && !(S == PipelineSchedule::OneFOneB && V == 1);
    Warm = GPipe    ? Total
           : Listed ? std::min<int64_t>(Total, int64_t(P - Stage - 1) * 2 +
                                                   int64_t(V - 1) * P)
                    : std::min<int64_t>(M, P - Stage);
    PairsEnd = GPipe ? Total : Warm + 2 * (Total - Warm);
    Cur = next();
  }
  bool done() const { return K == 2 * Total; }
  const Work &current() const { return Cur; }
  void advance() {
    if (++K < 2 * Total)
      Cur = next();
  }

private:
  /// The K-th slice: a forward or a backward, the next of its kind.
  Work next() {
    bool Fwd = K < Warm || (K < PairsEnd && ((K - Warm) % 2 == 0) == Listed);
    if (Listed)
      return Fwd ? FB.F[Fi++] : FB.B[Bi++];
    if (!GPipe)
      return Fwd ? Work{0, Fi++, false} : Work{0, Bi++, true};
    unsigned C = Chunk[Fwd]; // GPipe: chunk by chunk
    Work W{Fwd ? C : V - 1 - C, Mb[Fwd], !Fwd};
    if (++Mb[Fwd] == M) {
      Mb[Fwd] = 0;
      ++Chunk[Fwd];
    }
    return W;
  }
  unsigned V;
  int64_t M;
  const Lists &FB;
  int64_t Total, Warm = 0, PairsEnd = 0;
  int64_t K = 0, Fi = 0, Bi = 0; ///< the slice; forwards, backwards so far
  int64_t Mb[2] = {0, 0};        ///< GPipe: [backward, forward]
  unsigned Chunk[2] = {0, 0};
  bool GPipe = false, Listed = false;
  Work Cur{};
};

} // namespace

PipelineRun shardc::simulatePipeline(
    PipelineSchedule S, int64_t M, const PipelineTimes &T,
    llvm::function_ref<void(const PipelineSlice &)> Visit) {
  unsigned P = unsigned(T.Fwd.size());
  unsigned V = P ? unsigned(T.Fwd.front().size()) : 0;
  PipelineRun R;
  if (P == 0 || V == 0 || M <= 0)
    return R;
  int64_t Q = int64_t(P) * V; // virtual stages: chunk c of stage s is c·p + s
  Lists FB;
  if (S == PipelineSchedule::Interleaved ||
      (S == PipelineSchedule::OneFOneB && V > 1)) {
    FB.F = interleavedList(P, V, M, false);
    FB.B = interleavedList(P, V, M, true);
  }
  std::vector<StageOrder> Orders;
  Orders.reserve(P);
  for (unsigned St = 0; St < P; ++St)
    Orders.emplace_back(S, P, V, M, St, FB);
  // End times per (virtual stage, microbatch); negative: not yet run.
  std::vector<double> EndF(Q * M, -1), EndB(Q * M, -1);
  std::vector<double> Free(P, 0);
  R.Busy.assign(P, 0);
  R.LastBackwardEnd.assign(P, 0);
  // Sweeps up and down the stages, each stage running its slices until
  // one waits for a neighbour: a forward crosses every stage in an upward
  // sweep, a backward in a downward one. A slice runs once its input has,
  // so the times do not depend on the sweeps' order; a sweep that runs
  // nothing ends the simulation (complete, or a shardc bug).
  for (bool Progress = true, Up = true; Progress; Up = !Up) {
    Progress = false;
    for (unsigned I = 0; I < P; ++I) {
      unsigned St = Up ? I : P - 1 - I;
      StageOrder &Order = Orders[St];
      for (; !Order.done(); Order.advance()) {
        Work W = Order.current();
        int64_t Vq = int64_t(W.Chunk) * P + St;
        // The input: the previous virtual stage's forward, the next one's
        // backward; the last virtual stage's backward follows its forward.
        double Dep = 0, Delay = 0;
        if (!W.Backward && Vq > 0) {
          Dep = EndF[(Vq - 1) * M + W.Mb];
          Delay = T.FwdDelay;
        } else if (W.Backward && Vq + 1 < Q) {
          Dep = EndB[(Vq + 1) * M + W.Mb];
          Delay = T.BwdDelay;
        } else if (W.Backward) {
          Dep = EndF[Vq * M + W.Mb];
        }
        if (Dep < 0)
          break; // waits for a neighbour
        Dep += Delay;
        double Dur = !W.Backward ? T.Fwd[St][W.Chunk]
                     : W.Mb == 0 ? T.BwdFirst[St][W.Chunk]
                                 : T.Bwd[St][W.Chunk];
        double Start = std::max(Free[St], Dep);
        double End = Start + Dur;
        (W.Backward ? EndB : EndF)[Vq * M + W.Mb] = End;
        Visit({St, W.Chunk, W.Mb, W.Backward, Start, End});
        Free[St] = End;
        R.Busy[St] += Dur;
        if (W.Backward)
          R.LastBackwardEnd[St] = End;
        R.Makespan = std::max(R.Makespan, End);
        Progress = true;
      }
    }
  }
  for (unsigned St = 0; St < P; ++St)
    R.Complete &= Orders[St].done();
  return R;
}

PipelineRun shardc::simulatePipeline(PipelineSchedule S, int64_t M,
                                     const PipelineTimes &T) {
  std::vector<PipelineSlice> Slices;
  if (!T.Fwd.empty() && M > 0)
    Slices.reserve(
        size_t(2 * int64_t(T.Fwd.size()) * int64_t(T.Fwd.front().size()) * M));
  PipelineRun R = simulatePipeline(
      S, M, T, [&](const PipelineSlice &Sl) { Slices.push_back(Sl); });
  R.Slices = std::move(Slices);
  return R;
}
