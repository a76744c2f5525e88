#include "report/sections/memory_section.h"

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/render/markdown_table.h"
#include "report/model/model_state.h"
#include "report/sections/training_tables.h"

namespace mt {
namespace {

constexpr double kVisibleMiB = 0.05;  // below what the tables print

std::string mib(double v) { return fixed(v, 1); }

// "+16.2 MiB gradients, +7.1 MiB gathered parameters": the components above the reference's.
std::string costlier_components(const ModelState& s, const ModelState& base) {
  std::string out;
  auto add = [&](double mine, double theirs, const char* what) {
    if (mine - theirs >= kVisibleMiB)
      out += fmt::format("{}+{} MiB {}", out.empty() ? "" : ", ", mib(mine - theirs), what);
  };
  add(s.parameters, base.parameters, "parameters");
  add(s.gradients, base.gradients, "gradients");
  add(s.optimizer, base.optimizer, "optimizer state");
  add(s.gathered, base.gathered, "gathered parameters");
  return out;
}

}  // namespace

std::string render_memory_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance,
                                  const std::string& reference) {
  const std::string title = strategy_title(reference);
  std::vector<Column> columns = {{"strategy"},
                                 {"ranks", Align::Right},
                                 {"configuration"},
                                 {"parameters MiB", Align::Right},
                                 {"gradients MiB (peak)", Align::Right},
                                 {"optimizer MiB", Align::Right},
                                 {"gathered MiB", Align::Right},
                                 {"state MiB", Align::Right},
                                 {"state saving vs " + title, Align::Right},
                                 {"peak RSS MiB", Align::Right}};
  if (provenance.mixed()) columns.push_back({"stack"});
  MarkdownTable table(columns);
  std::string costlier;
  bool one_rank_costlier = false;
  for (const auto& r : training_rows(groups, reference)) {
    const Group& g = *r.group;
    auto state = mean_model_state(g);
    if (!state) continue;
    // The reference strategy's state at the same ranks and parameters; a zero total when there is
    // none to compare with.
    const ModelState base =
        r.reference && r.reference != &g ? mean_model_state(*r.reference).value_or(ModelState{}) : ModelState{};
    std::string versus = r.reference == &g ? "reference" : "-";
    if (base.total() > 0) versus = signed_percent((base.total() - state->total()) / base.total());
    std::vector<std::string> row = {g.strategy,
                                    ranks_cell(r),
                                    g.label(),
                                    mib(state->parameters),
                                    mib(state->gradients),
                                    mib(state->optimizer),
                                    state->gathered > 0 ? mib(state->gathered) : "-",
                                    mib(state->total()),
                                    versus,
                                    mean_std_cell(r.peak_memory_mb, 1)};
    if (provenance.mixed()) row.push_back(provenance.stack_cell(g));
    table.add_row(std::move(row));
    if (base.total() > 0 && state->total() - base.total() >= kVisibleMiB) {
      costlier += fmt::format("- {} ×{} ({}): {} MiB against {}'s {} MiB: {}.\n", g.strategy, g.ranks, g.label(),
                              mib(state->total()), title, mib(base.total()), costlier_components(*state, base));
      one_rank_costlier = one_rank_costlier || g.ranks == 1;
    }
  }
  if (table.empty()) return "";
  std::string out =
      "## Memory\n\n"
      "Model state one rank holds, from the engine's exact accounting (the largest over ranks, mean over "
      "repeats): parameters (full, or this rank's shard), gradients at their peak (transient reduction buffers "
      "included), optimizer state, and FSDP's gathered parameters — the peak of full parameters it gathers "
      "beside its shard. state MiB is their sum: an upper bound where the peaks do not coincide. Peak RSS "
      "also holds LibTorch and the allocator's caches, so it moves far less than the state does.\n\n" +
      table.render() + "\n";
  if (!costlier.empty()) {
    out += "Where a strategy holds more model state than " + title + " at the same ranks and parameters:\n\n" +
           costlier + "\n";
    if (one_rank_costlier) {
      out += "At one rank there is nothing to shard: the shard is the whole model, so a sharding strategy holds all " +
             title +
             " holds plus its own working buffers. Its peak gradients count both the full-size gradients being "
             "reduced and the shard's own gradient (full size at one rank), and FSDP gathers each unit's parameters "
             "into a buffer beside its shard.\n\n";
    }
  }
  return out;
}

}  // namespace mt
