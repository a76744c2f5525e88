#include "workloads/tp/tp_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/env/environment.h"
#include "core/env/resources.h"
#include "workloads/tp/tp_collectives.h"
#include "core/job/input_error.h"
#include "core/job/memory_check.h"
#include "core/job/workload.h"

namespace mt {
namespace {

using torch::indexing::Slice;

struct Inputs {
  torch::Tensor x, w1, b1, w2, b2, hidden_in, grad_hidden, grad_out;
};

Inputs make_inputs(const TpConfig& c, const torch::Device& device) {
  torch::manual_seed(c.seed);
  const auto o = torch::TensorOptions().device(device);
  const int64_t d = c.d_model, h = 4 * c.d_model;
  return {torch::randn({c.batch, c.seq_length, d}, o),
          torch::randn({h, d}, o) * 0.05,
          torch::randn({h}, o) * 0.05,
          torch::randn({d, h}, o) * 0.05,
          torch::randn({d}, o) * 0.05,
          torch::randn({c.batch, c.seq_length, h}, o),
          torch::randn({c.batch, c.seq_length, h}, o),
          torch::randn({c.batch, c.seq_length, d}, o)};
}

torch::Tensor leaf(const torch::Tensor& t) { return t.detach().clone().requires_grad_(true); }

class Checks {
 public:
  Checks(ControlChannel& control, double atol) : control_(control), atol_(atol) {}
  void compare(const std::string& layer, const std::string& tensor, const torch::Tensor& got,
               const torch::Tensor& want) {
    const double error = control_.max((got.detach() - want.detach()).abs().max().item<double>());
    rows_.push_back({{"layer", layer}, {"tensor", tensor}, {"max_abs_error", error}, {"pass", error <= atol_}});
    all_pass_ = all_pass_ && error <= atol_;
  }
  const nlohmann::json& rows() const { return rows_; }
  bool all_pass() const { return all_pass_; }

 private:
  ControlChannel& control_;
  double atol_;
  nlohmann::json rows_ = nlohmann::json::array();
  bool all_pass_ = true;
};

class TpWorkload final : public Workload {
 public:
  explicit TpWorkload(const TpConfig& config) : config_(config) {}

  std::string name() const override { return "tp"; }
  std::optional<std::string> validate() const override {
    TpConfig copy = config_;
    return check_options(tp_option_table(copy));
  }
  const JobOptions& job() const override { return config_.job; }

  WorkloadOutcome run(ProcessGroup& group) override {
    Communicator& comm = group.collectives;
    const int n = group.world_size(), r = group.rank();
    const int64_t h = 4 * config_.d_model;
    if (h % n != 0 || config_.seq_length % n != 0)
      throw InputError(fmt::format("4 x --d-model ({}) and --seq-length ({}) must divide by the {} ranks", h,
                                   config_.seq_length, n));
    // The unsplit reference MLP (d x 4d twice) and its activations (batch x seq x 4d), with
    // gradients and the split copies: about three times each, in floats.
    const double rows = static_cast<double>(config_.batch) * config_.seq_length;
    const double per_rank = 4.0 * 3.0 * (8.0 * config_.d_model * config_.d_model + 6.0 * rows * config_.d_model);
    require_host_memory(group.control, comm.device_memory(), per_rank,
                        "tp with this --d-model, --batch and --seq-length", "lower --d-model, --batch or --seq-length");
    at::set_num_threads(config_.threads > 0 ? config_.threads : default_threads());
    const torch::Device device = comm.device_memory() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
    const Inputs in = make_inputs(config_, device);
    const auto cols = Slice(r * h / n, (r + 1) * h / n);
    const auto seq = Slice(r * config_.seq_length / n, (r + 1) * config_.seq_length / n);
    Checks checks(group.control, config_.atol);

    {  // ColumnParallelLinear
      auto x = leaf(in.x), w = leaf(in.w1), b = leaf(in.b1);
      torch::linear(x, w, b).backward(in.grad_hidden);
      auto xp = leaf(in.x), wp = leaf(in.w1.index({cols})), bp = leaf(in.b1.index({cols}));
      auto y = torch::linear(copy_to_tp(xp, comm), wp, bp);
      y.backward(in.grad_hidden.index({Slice(), Slice(), cols}));
      checks.compare("column", "output", y, torch::linear(in.x, in.w1, in.b1).index({Slice(), Slice(), cols}));
      checks.compare("column", "input_grad", xp.grad(), x.grad());
      checks.compare("column", "weight_grad", wp.grad(), w.grad().index({cols}));
      checks.compare("column", "bias_grad", bp.grad(), b.grad().index({cols}));
    }
    {  // RowParallelLinear
      auto x = leaf(in.hidden_in), w = leaf(in.w2), b = leaf(in.b2);
      auto reference = torch::linear(x, w, b);
      reference.backward(in.grad_out);
      auto xp = leaf(in.hidden_in.index({Slice(), Slice(), cols})), wp = leaf(in.w2.index({Slice(), cols}));
      auto bp = leaf(in.b2);
      auto y = reduce_from_tp(torch::linear(xp, wp), comm) + bp;
      y.backward(in.grad_out);
      checks.compare("row", "output", y, reference);
      checks.compare("row", "input_grad", xp.grad(), x.grad().index({Slice(), Slice(), cols}));
      checks.compare("row", "weight_grad", wp.grad(), w.grad().index({Slice(), cols}));
      checks.compare("row", "bias_grad", bp.grad(), b.grad());
    }
    Reference mlp = reference_mlp(in);
    {  // column then row: no gather between
      Parts p(in, cols);
      auto y =
          reduce_from_tp(torch::linear(torch::gelu(torch::linear(copy_to_tp(p.x, comm), p.w1, p.b1)), p.w2), comm) +
          p.b2;
      y.backward(in.grad_out);
      compare_mlp(checks, "mlp", y, p, mlp, cols, Slice());
    }
    {  // sequence parallel: this rank's slice of the sequence in and out
      Parts p(in, cols, seq);
      auto full = gather_sequence(p.x, comm);
      auto y = scatter_sequence(torch::linear(torch::gelu(torch::linear(full, p.w1, p.b1)), p.w2), comm) + p.b2;
      y.backward(in.grad_out.index({Slice(), seq}));
      // The bias after the region sees only this rank's positions: its gradient sums over ranks.
      auto bias_grad = p.b2.grad().clone();
      comm.all_reduce(bias_grad.data_ptr(), static_cast<std::size_t>(bias_grad.numel()), ElementType::f32)->wait();
      comm.synchronize();
      p.b2.mutable_grad() = bias_grad;
      compare_mlp(checks, "sp_mlp", y, p, mlp, cols, seq);
    }

    WorkloadOutcome outcome;
    outcome.exit_code = checks.all_pass() ? 0 : 1;
    if (r != 0) return outcome;
    for (const auto& row : checks.rows())
      fmt::print("mtengine tp: {:<7} {:<12} max |error| {:.3g} {}\n", row["layer"].get<std::string>(),
                 row["tensor"].get<std::string>(), row["max_abs_error"].get<double>(),
                 row["pass"].get<bool>() ? "ok" : "FAIL");
    outcome.result =
        result_document("tp", checks.all_pass(),
                        {{"backend", config_.job.backend},
                         {"world_size", n},
                         {"batch", config_.batch},
                         {"seq_length", config_.seq_length},
                         {"d_model", config_.d_model},
                         {"atol", config_.atol},
                         {"checks", checks.rows()},
                         {"all_pass", checks.all_pass()},
                         {"environment", to_json(collect_environment(default_threads(), comm.device_memory()), true)}});
    if (!checks.all_pass())
      outcome.result["error"] = error_json(
          {std::nullopt, std::nullopt, "a parallel form differs from the single-device reference beyond --atol", ""});
    return outcome;
  }

 private:
  struct Reference {
    torch::Tensor y, x_grad, w1_grad, b1_grad, w2_grad, b2_grad;
  };
  // This rank's leaves: its columns of W1/b1, its columns of W2 (input dimension), b2 and the input
  // (whole, or its slice of the sequence).
  struct Parts {
    torch::Tensor x, w1, b1, w2, b2;
    Parts(const Inputs& in, const Slice& cols, const Slice& seq = Slice())
        : x(leaf(in.x.index({Slice(), seq}))),
          w1(leaf(in.w1.index({cols}))),
          b1(leaf(in.b1.index({cols}))),
          w2(leaf(in.w2.index({Slice(), cols}))),
          b2(leaf(in.b2)) {}
  };

  Reference reference_mlp(const Inputs& in) const {
    auto x = leaf(in.x), w1 = leaf(in.w1), b1 = leaf(in.b1), w2 = leaf(in.w2), b2 = leaf(in.b2);
    auto y = torch::linear(torch::gelu(torch::linear(x, w1, b1)), w2, b2);
    y.backward(in.grad_out);
    return {y.detach(), x.grad(), w1.grad(), b1.grad(), w2.grad(), b2.grad()};
  }

  static void compare_mlp(Checks& checks, const std::string& layer, const torch::Tensor& y, const Parts& p,
                          const Reference& ref, const Slice& cols, const Slice& seq) {
    checks.compare(layer, "output", y, ref.y.index({Slice(), seq}));
    checks.compare(layer, "input_grad", p.x.grad(), ref.x_grad.index({Slice(), seq}));
    checks.compare(layer, "fc_in_weight_grad", p.w1.grad(), ref.w1_grad.index({cols}));
    checks.compare(layer, "fc_in_bias_grad", p.b1.grad(), ref.b1_grad.index({cols}));
    checks.compare(layer, "fc_out_weight_grad", p.w2.grad(), ref.w2_grad.index({Slice(), cols}));
    checks.compare(layer, "fc_out_bias_grad", p.b2.grad(), ref.b2_grad);
  }

  TpConfig config_;
};

}  // namespace

OptionTable tp_option_table(TpConfig& c) {
  OptionTable t;
  auto& o = t.options;
  for (auto [flag, target, help] :
       {std::tuple{"batch", &c.batch, "sequences"},
        std::tuple{"seq-length", &c.seq_length, "positions per sequence (divisible by the ranks)"},
        std::tuple{"d-model", &c.d_model, "width; the MLP is 4 x wider"}}) {
    Option option{flag, OptionType::integer, help, target};
    option.minimum = 1;
    option.maximum = 1 << 16;
    o.push_back(option);
  }
  o.push_back(Option{"seed", OptionType::integer, "seed of inputs and weights", &c.seed});
  {
    Option atol{"atol", OptionType::number, "largest |parallel - reference| accepted per tensor", &c.atol};
    atol.minimum = 0;
    o.push_back(atol);
    Option threads{"threads", OptionType::integer, "intra-op threads (0: from the environment)", &c.threads};
    threads.minimum = 0;
    o.push_back(threads);
  }
  add_job_options(o, c.job);
  return t;
}

int run_tp_command(const TpConfig& config) {
  TpWorkload workload(config);
  return run_workload(workload);
}

}  // namespace mt
